/*
 * rate_limiter: limits each IPv4 5-tuple flow to `pps` packets per second
 * with a burst of `burst` packets (FlowMage's FlowRateLimiter).
 *
 * Flows are kept in a set-associative cache inside the state instance: the
 * flow hash selects a set of RL_WAYS entries; a new flow takes a free way or
 * evicts the least recently seen one. No pointers, no chains. Each packet of
 * a tracked flow refills and debits its bucket, so state is written per
 * packet. Non-IPv4 traffic and non-first fragments pass unlimited.
 *
 * Config: pps (packets per second, required), burst (packets, default pps).
 */
#include "nf.h"

#define RL_SETS 4096u
#define RL_WAYS 4u
#define RL_SCALE 1000000000ull /* tokens are stored in packet-nanoseconds */

struct rl_key {
    uint32_t saddr, daddr;
    uint16_t sport, dport;
    uint8_t proto;
    uint8_t pad[3];
};

struct rl_flow {
    struct rl_key key;
    uint32_t valid;
    uint64_t tokens;   /* packets * RL_SCALE */
    uint64_t last_ns;
};

struct rl_state {
    struct rl_flow sets[RL_SETS][RL_WAYS];
    uint64_t evictions;
};

static uint64_t cfg_pps, cfg_burst;
static const struct nf_info rl_info = {NF_ABI_VERSION, "rate_limiter", 1};

const struct nf_info *nf_describe(void) { return &rl_info; }

int nf_init(const struct nf_config *cfg, char *err, size_t err_len)
{
    const char *pps = nf_config_get(cfg, "pps");
    if (!pps || nf_parse_u64(pps, &cfg_pps) || cfg_pps == 0 || cfg_pps > 1000000000ull)
        return nf_fail(err, err_len, "expected packets per second (1..1e9)", "pps");
    if (nf_config_u64(cfg, "burst", cfg_pps, &cfg_burst) || cfg_burst == 0 || cfg_burst > 1000000000ull)
        return nf_fail(err, err_len, "expected a burst in packets (1..1e9)", "burst");
    return 0;
}

size_t nf_state_size(void) { return sizeof(struct rl_state); }

static int rl_key_eq(const struct rl_key *a, const struct rl_key *b)
{
    return a->saddr == b->saddr && a->daddr == b->daddr && a->sport == b->sport && a->dport == b->dport &&
           a->proto == b->proto;
}

static struct rl_flow *rl_lookup(struct rl_state *st, const struct rl_key *k, uint64_t now)
{
    struct rl_flow *set = st->sets[nf_hash_bytes(k, sizeof *k) & (RL_SETS - 1)];
    struct rl_flow *victim = &set[0];

    for (uint32_t w = 0; w < RL_WAYS; w++) {
        if (set[w].valid && rl_key_eq(&set[w].key, k))
            return &set[w];
    }
    for (uint32_t w = 0; w < RL_WAYS; w++) {
        if (!set[w].valid) {
            victim = &set[w];
            break;
        }
        if (set[w].last_ns < victim->last_ns)
            victim = &set[w];
    }
    if (victim->valid)
        st->evictions++;
    victim->key = *k;
    victim->valid = 1;
    victim->tokens = cfg_burst * RL_SCALE;
    victim->last_ns = now;
    return victim;
}

int32_t nf_process(struct nf_ctx *ctx, struct nf_packet *pkt)
{
    struct rl_state *st = ctx->state;
    struct nf_headers h;
    struct rl_key key;
    struct rl_flow *f;
    uint64_t cap = cfg_burst * RL_SCALE, dt;

    if (nf_parse(pkt, &h) != 0)
        return NF_DROP;
    if (!h.ip4 || h.is_fragment)
        return NF_PORT(0);

    memset(&key, 0, sizeof key);
    key.saddr = h.ip4->saddr;
    key.daddr = h.ip4->daddr;
    key.proto = h.proto;
    if (h.tcp) {
        key.sport = h.tcp->sport;
        key.dport = h.tcp->dport;
    } else if (h.udp) {
        key.sport = h.udp->sport;
        key.dport = h.udp->dport;
    }

    f = rl_lookup(st, &key, ctx->now_ns);
    dt = ctx->now_ns > f->last_ns ? ctx->now_ns - f->last_ns : 0;
    if (dt > cap / cfg_pps || f->tokens + dt * cfg_pps > cap)
        f->tokens = cap;
    else
        f->tokens += dt * cfg_pps;
    f->last_ns = ctx->now_ns;
    if (f->tokens < RL_SCALE)
        return NF_DROP;
    f->tokens -= RL_SCALE;
    return NF_PORT(0);
}
