/*
 * l2fwd: rewrites the Ethernet destination (and optionally source) MAC and
 * forwards every frame to one output port, like DPDK's l2fwd and the FLASH
 * L2fwd NF. Stateless: the addresses are configuration. Frames shorter than
 * an Ethernet header are dropped.
 *
 * Config: dst_mac (required), src_mac (optional), port (default 0, < 16).
 */
#include "nf.h"

static uint8_t new_dst[6], new_src[6];
static int rewrite_src;
static uint32_t out_port;
static struct nf_info l2fwd_info = {NF_ABI_VERSION, "l2fwd", 1};

const struct nf_info *nf_describe(void) { return &l2fwd_info; }

int nf_init(const struct nf_config *cfg, char *err, size_t err_len)
{
    const char *v = nf_config_get(cfg, "dst_mac");
    uint64_t port;
    if (!v || nf_parse_mac(v, new_dst))
        return nf_fail(err, err_len, "expected a MAC address aa:bb:cc:dd:ee:ff", "dst_mac");
    v = nf_config_get(cfg, "src_mac");
    rewrite_src = v != 0;
    if (v && nf_parse_mac(v, new_src))
        return nf_fail(err, err_len, "expected a MAC address aa:bb:cc:dd:ee:ff", "src_mac");
    if (nf_config_u64(cfg, "port", 0, &port) || port >= 16)
        return nf_fail(err, err_len, "expected an output port 0..15", "port");
    out_port = (uint32_t)port;
    l2fwd_info.n_ports = out_port + 1;
    return 0;
}

size_t nf_state_size(void) { return 0; }

int32_t nf_process(struct nf_ctx *ctx, struct nf_packet *pkt)
{
    uint8_t *frame = pkt->data;
    (void)ctx;
    if (pkt->len < 14)
        return NF_DROP;
    memcpy(frame, new_dst, 6);
    if (rewrite_src)
        memcpy(frame + 6, new_src, 6);
    return NF_PORT(out_port);
}
