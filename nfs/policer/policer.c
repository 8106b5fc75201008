/*
 * policer: a token-bucket policer per destination IPv4 address (FlowMage's
 * IPolicer). Each destination gets `burst` bytes of credit refilled at
 * `rate` bytes per second; a packet that finds too little credit is dropped.
 *
 * Buckets live in an nf.h flow table (open addressing, no pointers) keyed
 * by the destination address; every IPv4 packet refills and debits its
 * bucket, so state is written per packet. Non-IPv4 frames pass untouched.
 *
 * Config: rate (bytes/s, required), burst (bytes, default rate/10, >= 64).
 */
#include "nf.h"

#define POLICER_CAPACITY 65536
#define NS_PER_S 1000000000ull

static uint64_t policer_rate_Bps;   /* refill rate, bytes per second */
static uint64_t policer_burst_B;    /* bucket depth, bytes */

static const struct nf_info policer_info = {NF_ABI_VERSION, "policer", 1};

/* Credit is kept in byte-nanoseconds (bytes * 1e9) to avoid rounding. */
struct policer_bucket {
    uint64_t credit;
    uint64_t last_ns;
};

struct policer_state {
    NF_FTABLE(uint32_t, struct policer_bucket, POLICER_CAPACITY) buckets;
    uint64_t untracked;
};

const struct nf_info *nf_describe(void) { return &policer_info; }

int nf_init(const struct nf_config *cfg, char *err, size_t err_len)
{
    const char *rate = nf_config_get(cfg, "rate");
    if (!rate)
        return nf_fail(err, err_len, "missing required key", "rate");
    if (nf_parse_u64(rate, &policer_rate_Bps) || policer_rate_Bps == 0 || policer_rate_Bps > 100000000000ull)
        return nf_fail(err, err_len, "expected bytes per second (1..1e11)", "rate");
    if (nf_config_u64(cfg, "burst", policer_rate_Bps / 10 < 64 ? 64 : policer_rate_Bps / 10, &policer_burst_B) ||
        policer_burst_B < 64 || policer_burst_B > 1000000000ull)
        return nf_fail(err, err_len, "expected a burst in bytes (64..1e9)", "burst");
    return 0;
}

size_t nf_state_size(void) { return sizeof(struct policer_state); }

void nf_state_init(void *state)
{
    struct policer_state *st = state;
    NF_FTABLE_INIT(&st->buckets);
    st->untracked = 0;
}

int32_t nf_process(struct nf_ctx *ctx, struct nf_packet *pkt)
{
    struct policer_state *st = ctx->state;
    struct nf_headers h;
    struct policer_bucket *b;
    uint32_t dst;
    uint64_t full = policer_burst_B * NS_PER_S;
    uint64_t need = (uint64_t)pkt->len * NS_PER_S;
    uint64_t elapsed;

    if (nf_parse(pkt, &h) != 0)
        return NF_DROP;
    if (!h.ip4)
        return NF_PORT(0);

    dst = nf_ntohl(h.ip4->daddr);
    b = nf_ftable_lookup(&st->buckets.hdr, &dst);
    if (!b) {
        b = nf_ftable_insert(&st->buckets.hdr, &dst);
        if (!b) {
            st->untracked++;
            return NF_PORT(0);
        }
        b->credit = full;
        b->last_ns = ctx->now_ns;
    }

    elapsed = ctx->now_ns > b->last_ns ? ctx->now_ns - b->last_ns : 0;
    if (elapsed >= full / policer_rate_Bps + 1)
        b->credit = full;
    else if (b->credit + elapsed * policer_rate_Bps > full)
        b->credit = full;
    else
        b->credit += elapsed * policer_rate_Bps;
    b->last_ns = ctx->now_ns;

    if (b->credit < need)
        return NF_DROP;
    b->credit -= need;
    return NF_PORT(0);
}
