/*
 * classify: a stateless test NF with three output ports: TCP to port 0,
 * UDP to port 1, everything else to port 2; with drop_other=1 the rest is
 * dropped instead. Used to test DAG fan-out, fan-in and per-port counters.
 */
#include "nf.h"

static uint64_t g_drop_other;

static const struct nf_info info = {NF_ABI_VERSION, "classify", 3};

const struct nf_info *nf_describe(void) { return &info; }

int nf_init(const struct nf_config *cfg, char *err, size_t err_len)
{
    if (nf_config_u64(cfg, "drop_other", 0, &g_drop_other))
        return nf_fail(err, err_len, "bad integer", "drop_other");
    return 0;
}

size_t nf_state_size(void) { return 0; }

int32_t nf_process(struct nf_ctx *ctx, struct nf_packet *pkt)
{
    struct nf_headers h;
    (void)ctx;
    nf_parse(pkt, &h);
    if (h.tcp)
        return NF_PORT(0);
    if (h.udp)
        return NF_PORT(1);
    return g_drop_other ? NF_DROP : NF_PORT(2);
}
