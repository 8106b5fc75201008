/*
 * flowlimit: a stateful test NF keyed by the IPv4 5-tuple. It counts packets
 * per flow in an nf_ftable and drops every packet of a flow after the first
 * `limit` (default: never), so its output depends on per-flow state: with an
 * RSS that keeps each flow on one worker, shared and shared-nothing layouts
 * give the same output. It also stamps the flow's packet count into the last
 * byte of the frame (mod 256) and keeps a total and the last timestamp.
 * Config: limit; key = 5tuple (default) or src (key by source address only,
 * which makes a 5-tuple RSS unsafe for shared-nothing); fail=1 makes nf_init
 * fail. Capacity is fixed at 4096 flows.
 */
#include "nf.h"

struct flow_val {
    uint64_t packets;
};

struct state {
    uint64_t total;
    uint64_t last_ns;
    uint64_t non_ip;
    NF_FTABLE(struct nf_flow5, struct flow_val, 4096) flows;
};

static uint64_t g_limit;
static int g_src_only;

static const struct nf_info info = {NF_ABI_VERSION, "flowlimit", 1};

const struct nf_info *nf_describe(void) { return &info; }

int nf_init(const struct nf_config *cfg, char *err, size_t err_len)
{
    uint64_t fail = 0;
    if (nf_config_u64(cfg, "fail", 0, &fail) || fail)
        return nf_fail(err, err_len, "asked to fail by config", "fail");
    if (nf_config_u64(cfg, "limit", UINT64_MAX, &g_limit))
        return nf_fail(err, err_len, "bad integer", "limit");
    g_src_only = 0;
    if (nf_config_get(cfg, "key")) {
        const char *k = nf_config_get(cfg, "key");
        if (strcmp(k, "src") == 0)
            g_src_only = 1;
        else if (strcmp(k, "5tuple") != 0)
            return nf_fail(err, err_len, "key must be 5tuple or src", "key");
    }
    return 0;
}

size_t nf_state_size(void) { return sizeof(struct state); }

void nf_state_init(void *p)
{
    struct state *st = p;
    NF_FTABLE_INIT(&st->flows);
}

int32_t nf_process(struct nf_ctx *ctx, struct nf_packet *pkt)
{
    struct state *st = ctx->state;
    struct nf_headers h;
    struct nf_flow5 key;
    struct flow_val *v;
    st->total++;
    st->last_ns = ctx->now_ns;
    nf_parse(pkt, &h);
    if (nf_flow5_from(&h, &key)) {
        st->non_ip++;
        return NF_PORT(0);
    }
    if (g_src_only) {
        uint32_t src = key.src_ip;
        memset(&key, 0, sizeof key);
        key.src_ip = src;
    }
    v = nf_ftable_insert(&st->flows.hdr, &key);
    if (!v)
        return NF_DROP;
    v->packets++;
    if (v->packets > g_limit)
        return NF_DROP;
    pkt->data[pkt->len - 1] = (uint8_t)v->packets;
    return NF_PORT(0);
}
