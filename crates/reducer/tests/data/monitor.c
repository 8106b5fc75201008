/*
 * monitor.c — a flow monitor NF (reducer golden input).
 *
 * Counts packets and bytes per IPv4 5-tuple in a fixed-capacity flow table
 * kept in the state instance, and passes every packet. With `log_every` > 0
 * it prints a statistics line every that many packets: observability logic
 * that cannot influence packets or state (the reducer's slice reports it and
 * strips it only when asked).
 * Config keys: log_every (0 = never).
 */
#include "nf.h"
#include <stdio.h>

struct mon_val {
    uint64_t packets;
    uint64_t bytes;
};

struct mon_state {
    uint64_t packets;
    uint64_t non_ip;
    NF_FTABLE(struct nf_flow5, struct mon_val, 1024) flows;
};

static uint64_t log_every;

static const struct nf_info info = {NF_ABI_VERSION, "test-monitor", 1};
const struct nf_info *nf_describe(void) { return &info; }
size_t nf_state_size(void) { return sizeof(struct mon_state); }
void nf_state_init(void *state) { NF_FTABLE_INIT(&((struct mon_state *)state)->flows); }

int nf_init(const struct nf_config *cfg, char *err, size_t err_len)
{
    if (nf_config_u64(cfg, "log_every", 0, &log_every))
        return nf_fail(err, err_len, "bad number", "log_every");
    return 0;
}

int32_t nf_process(struct nf_ctx *ctx, struct nf_packet *pkt)
{
    struct mon_state *st = (struct mon_state *)ctx->state;
    struct nf_headers h;
    struct nf_flow5 key;
    struct mon_val *v;
    st->packets++;
    if (log_every && st->packets % log_every == 0)
        fprintf(stderr, "monitor: %llu packets, %u flows\n", (unsigned long long)st->packets, st->flows.hdr.count);
    if (nf_parse(pkt, &h) || nf_flow5_from(&h, &key)) {
        st->non_ip++;
        return NF_PORT(0);
    }
    v = nf_ftable_insert(&st->flows.hdr, &key);
    if (v) {
        v->packets++;
        v->bytes += pkt->len;
    }
    return NF_PORT(0);
}
