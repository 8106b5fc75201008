/*
 * marker: a stateless test NF that writes a configured byte at a configured
 * offset of every packet long enough, and counts nothing. Two instances of
 * one marker.so with different configs in one chain must each keep their own
 * globals: the executor's per-instance private copies are what this checks.
 * Config: offset (default 0), value (0..255, required), port (default 0).
 */
#include "nf.h"

static uint64_t g_offset, g_value, g_port;

static const struct nf_info info = {NF_ABI_VERSION, "marker", 1};

const struct nf_info *nf_describe(void) { return &info; }

int nf_init(const struct nf_config *cfg, char *err, size_t err_len)
{
    if (nf_config_u64(cfg, "offset", 0, &g_offset))
        return nf_fail(err, err_len, "bad integer", "offset");
    if (!nf_config_get(cfg, "value"))
        return nf_fail(err, err_len, "missing required key", "value");
    if (nf_config_u64(cfg, "value", 0, &g_value) || g_value > 255)
        return nf_fail(err, err_len, "value must be 0..255", "value");
    if (nf_config_u64(cfg, "port", 0, &g_port))
        return nf_fail(err, err_len, "bad integer", "port");
    return 0;
}

size_t nf_state_size(void) { return 0; }

int32_t nf_process(struct nf_ctx *ctx, struct nf_packet *pkt)
{
    (void)ctx;
    if (g_offset < pkt->len)
        pkt->data[g_offset] = (uint8_t)g_value;
    return NF_PORT((int32_t)g_port);
}
