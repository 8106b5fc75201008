/*
 * heavy_hitter: detects heavy-hitter IPv4 sources with a count-min sketch.
 * Each packet adds its size (or 1) to one counter in each of CM_DEPTH rows,
 * at a column chosen by a per-row hash of the source address; the minimum of
 * those counters estimates the source's volume in the current window. A
 * source whose estimate exceeds `threshold` is a heavy hitter: its packets
 * are dropped or, with action: mark, sent to port 1. The sketch is reset
 * every window_ms.
 *
 * The sketch arrays live in the state instance and are indexed by hashes of
 * the source address, written on every packet. Headers are decoded by hand.
 *
 * Config: threshold (required), width (columns per row, power of two,
 * 64..65536, default 4096), window_ms (default 1000), count (packets |
 * bytes, default bytes), action (drop | mark, default drop).
 */
#include "nf.h"

#define CM_DEPTH 4
#define CM_MAX_WIDTH 65536u

struct sketch_state {
    uint64_t window_start_ns;
    uint32_t started; /* a window is open (window_start_ns is valid) */
    uint32_t _pad;
    uint32_t counters[CM_DEPTH][CM_MAX_WIDTH];
};

static uint64_t hh_threshold;
static uint32_t hh_width_mask = 4095;
static uint64_t hh_window_ns = 1000000000ull;
static int hh_count_bytes = 1;
static int hh_mark = 0;
static const uint32_t row_seed[CM_DEPTH] = {0x9e3779b1u, 0x85ebca77u, 0xc2b2ae3du, 0x27d4eb2fu};
static const struct nf_info hh_info = {NF_ABI_VERSION, "heavy_hitter", 2};

const struct nf_info *nf_describe(void) { return &hh_info; }

int nf_init(const struct nf_config *cfg, char *err, size_t err_len)
{
    uint64_t w, ms;
    const char *s;

    s = nf_config_get(cfg, "threshold");
    if (!s || nf_parse_u64(s, &hh_threshold) || hh_threshold == 0 || hh_threshold > 0xffffffffull)
        return nf_fail(err, err_len, "expected a positive 32-bit threshold", "threshold");
    if (nf_config_u64(cfg, "width", 4096, &w) || w < 64 || w > CM_MAX_WIDTH || (w & (w - 1)))
        return nf_fail(err, err_len, "expected a power of two between 64 and 65536", "width");
    hh_width_mask = (uint32_t)w - 1;
    if (nf_config_u64(cfg, "window_ms", 1000, &ms) || ms == 0 || ms > 86400000ull)
        return nf_fail(err, err_len, "expected milliseconds (1..86400000)", "window_ms");
    hh_window_ns = ms * 1000000ull;
    s = nf_config_get(cfg, "count");
    if (!s || !strcmp(s, "bytes"))
        hh_count_bytes = 1;
    else if (!strcmp(s, "packets"))
        hh_count_bytes = 0;
    else
        return nf_fail(err, err_len, "expected packets or bytes", "count");
    s = nf_config_get(cfg, "action");
    if (!s || !strcmp(s, "drop"))
        hh_mark = 0;
    else if (!strcmp(s, "mark"))
        hh_mark = 1;
    else
        return nf_fail(err, err_len, "expected drop or mark", "action");
    return 0;
}

size_t nf_state_size(void) { return sizeof(struct sketch_state); }

static uint32_t row_hash(uint32_t x, uint32_t seed)
{
    x ^= seed;
    x *= 0xcc9e2d51u;
    x = (x << 15) | (x >> 17);
    x *= 0x1b873593u;
    x ^= x >> 16;
    return x;
}

int32_t nf_process(struct nf_ctx *ctx, struct nf_packet *pkt)
{
    struct sketch_state *sk = ctx->state;
    const uint8_t *d = pkt->data;
    uint32_t off = 14, saddr, add, est = 0xffffffffu;
    uint16_t type;

    if (pkt->len < 14)
        return NF_DROP;
    type = (uint16_t)(d[12] << 8 | d[13]);
    if (type == NF_ETH_P_VLAN && pkt->len >= 18) {
        type = (uint16_t)(d[16] << 8 | d[17]);
        off = 18;
    }
    if (type != NF_ETH_P_IPV4 || pkt->len < off + 20 || (d[off] >> 4) != 4)
        return NF_PORT(0);
    saddr = (uint32_t)d[off + 12] << 24 | (uint32_t)d[off + 13] << 16 | (uint32_t)d[off + 14] << 8 | d[off + 15];

    if (!sk->started || ctx->now_ns < sk->window_start_ns || ctx->now_ns - sk->window_start_ns > hh_window_ns) {
        memset(sk->counters, 0, sizeof sk->counters);
        sk->window_start_ns = ctx->now_ns;
        sk->started = 1;
    }
    add = hh_count_bytes ? pkt->len : 1;
    for (int r = 0; r < CM_DEPTH; r++) {
        uint32_t *c = &sk->counters[r][row_hash(saddr, row_seed[r]) & hh_width_mask];
        *c = *c > 0xffffffffu - add ? 0xffffffffu : *c + add;
        if (*c < est)
            est = *c;
    }
    if (est > hh_threshold)
        return hh_mark ? NF_PORT(1) : NF_DROP;
    return NF_PORT(0);
}
