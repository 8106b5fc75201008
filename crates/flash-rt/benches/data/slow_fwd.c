/*
 * slow_fwd.c — a deliberately slow L2 forwarder for flash-rt's backpressure
 * benchmark (benches/flash_chain.rs): it rewrites the Ethernet MACs like
 * l2fwd, then spins for `spin_ns` nanoseconds of wall clock per packet, so
 * it is the bottleneck of any chain it ends and its upstream NFs see full
 * inboxes. Stateless; nf.h ABI v1.
 *
 * Config: dst_mac, src_mac (required), spin_ns (default 20000).
 */
#include "nf.h"
#include <time.h>

static uint8_t g_dst[6], g_src[6];
static uint64_t g_spin_ns = 20000;
static const struct nf_info INFO = {NF_ABI_VERSION, "slow_fwd", 1};

const struct nf_info *nf_describe(void) { return &INFO; }

int nf_init(const struct nf_config *cfg, char *err, size_t err_len)
{
    const char *d = nf_config_get(cfg, "dst_mac");
    const char *s = nf_config_get(cfg, "src_mac");
    if (!d || nf_parse_mac(d, g_dst))
        return nf_fail(err, err_len, "missing or bad MAC", "dst_mac");
    if (!s || nf_parse_mac(s, g_src))
        return nf_fail(err, err_len, "missing or bad MAC", "src_mac");
    if (nf_config_u64(cfg, "spin_ns", 20000, &g_spin_ns) || g_spin_ns > 1000000000ull)
        return nf_fail(err, err_len, "expected nanoseconds (at most 1e9)", "spin_ns");
    return 0;
}

size_t nf_state_size(void) { return 0; }

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int32_t nf_process(struct nf_ctx *ctx, struct nf_packet *pkt)
{
    (void)ctx;
    if (pkt->len < 14)
        return NF_DROP;
    memcpy(pkt->data, g_dst, 6);
    memcpy(pkt->data + 6, g_src, 6);
    uint64_t until = mono_ns() + g_spin_ns;
    while (mono_ns() < until)
        ;
    return NF_PORT(0);
}
