/*
 * l2fwd.c — test NF for flash-rt's netns tests (FLASH's L2fwd): rewrites the
 * Ethernet destination and source MACs from its config (`dst_mac`,
 * `src_mac`) and forwards every frame to port 0. Frames shorter than an
 * Ethernet header are dropped. Stateless; written against nf.h ABI v1.
 */
#include "nf.h"

static uint8_t g_dst[6];
static uint8_t g_src[6];

static const struct nf_info INFO = {NF_ABI_VERSION, "l2fwd", 1};

const struct nf_info *nf_describe(void) { return &INFO; }

int nf_init(const struct nf_config *cfg, char *err, size_t err_len)
{
    const char *d = nf_config_get(cfg, "dst_mac");
    const char *s = nf_config_get(cfg, "src_mac");
    if (!d || nf_parse_mac(d, g_dst))
        return nf_fail(err, err_len, "missing or bad MAC", "dst_mac");
    if (!s || nf_parse_mac(s, g_src))
        return nf_fail(err, err_len, "missing or bad MAC", "src_mac");
    return 0;
}

size_t nf_state_size(void) { return 0; }

int32_t nf_process(struct nf_ctx *ctx, struct nf_packet *pkt)
{
    (void)ctx;
    if (pkt->len < sizeof(struct nf_eth))
        return NF_DROP;
    memcpy(pkt->data, g_dst, 6);
    memcpy(pkt->data + 6, g_src, 6);
    return NF_PORT(0);
}
