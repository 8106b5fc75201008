/*
 * flow_counter: counts packets and bytes per IPv4 5-tuple (FlowMage's
 * FlowCounter). It uses nf.h's parser and its pointer-free flow table; each
 * IPv4 packet increments the counters of its flow, so state is written on
 * every packet. Optionally drops flows after a packet budget, which is the
 * only policy it applies.
 *
 * Config: max_packets (per-flow packet budget, 0 = unlimited, default 0).
 */
#include "nf.h"

#define FLOW_COUNTER_CAPACITY 65536

struct flow_stats {
    uint64_t packets;
    uint64_t bytes;
};

struct flow_counter_state {
    NF_FTABLE(struct nf_flow5, struct flow_stats, FLOW_COUNTER_CAPACITY) flows;
    uint64_t table_full;
};

static uint64_t max_packets_per_flow;
static const struct nf_info flow_counter_info = {NF_ABI_VERSION, "flow_counter", 1};

const struct nf_info *nf_describe(void) { return &flow_counter_info; }

int nf_init(const struct nf_config *cfg, char *err, size_t err_len)
{
    if (nf_config_u64(cfg, "max_packets", 0, &max_packets_per_flow))
        return nf_fail(err, err_len, "expected a non-negative integer", "max_packets");
    return 0;
}

size_t nf_state_size(void) { return sizeof(struct flow_counter_state); }

void nf_state_init(void *state)
{
    struct flow_counter_state *st = state;
    NF_FTABLE_INIT(&st->flows);
}

int32_t nf_process(struct nf_ctx *ctx, struct nf_packet *pkt)
{
    struct flow_counter_state *st = ctx->state;
    struct nf_headers h;
    struct nf_flow5 key;
    struct flow_stats *s;

    if (nf_parse(pkt, &h) != 0)
        return NF_DROP;
    if (nf_flow5_from(&h, &key) != 0)
        return NF_PORT(0);
    s = nf_ftable_insert(&st->flows.hdr, &key);
    if (!s) {
        st->table_full++;
        return NF_PORT(0);
    }
    s->packets++;
    s->bytes += pkt->len;
    if (max_packets_per_flow && s->packets > max_packets_per_flow)
        return NF_DROP;
    return NF_PORT(0);
}
