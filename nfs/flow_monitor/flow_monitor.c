/*
 * flow_monitor: per-flow statistics (packets, bytes, first/last seen, OR of
 * TCP flags) for IPv4 5-tuples, like a NetFlow exporter's flow cache.
 *
 * Its flow cache is a classic chained hash table built from a node pool
 * inside the state instance: buckets hold `struct flow_rec *` pointers and
 * nodes link with `next` pointers, so lookups chase pointers. Because those
 * are absolute pointers into the state, the NF exports nf_state_digest(),
 * which emits the records in a canonical, pointer-free form. Every IPv4
 * packet updates its record, so state is written per packet. Records idle
 * for longer than idle_timeout_ms are recycled when the pool runs dry.
 * Traffic is never dropped (runt frames excepted).
 *
 * Config: idle_timeout_ms (default 30000), ipv4_only (true | false,
 * default true: drop non-IPv4 frames; false forwards them unrecorded).
 */
#include "nf.h"

#define FM_BUCKETS 8192u
#define FM_POOL 32768u

struct flow_rec {
    struct flow_rec *next;
    struct nf_flow5 key;
    uint64_t packets;
    uint64_t bytes;
    uint64_t first_ns;
    uint64_t last_ns;
    uint8_t tcp_flags;
    uint8_t _pad[7];
};

struct flow_cache {
    struct flow_rec *bucket[FM_BUCKETS];
    struct flow_rec *free_list;
    uint64_t recycled;
    uint64_t not_recorded;
    struct flow_rec pool[FM_POOL];
};

static uint64_t idle_timeout_ns = 30000ull * 1000000ull;
static int drop_non_ipv4 = 1;
static const struct nf_info fm_info = {NF_ABI_VERSION, "flow_monitor", 1};

const struct nf_info *nf_describe(void) { return &fm_info; }

int nf_init(const struct nf_config *cfg, char *err, size_t err_len)
{
    uint64_t ms;
    const char *v;
    if (nf_config_u64(cfg, "idle_timeout_ms", 30000, &ms) || ms == 0 || ms > 86400000ull)
        return nf_fail(err, err_len, "expected milliseconds (1..86400000)", "idle_timeout_ms");
    idle_timeout_ns = ms * 1000000ull;
    v = nf_config_get(cfg, "ipv4_only");
    if (!v || !strcmp(v, "true"))
        drop_non_ipv4 = 1;
    else if (!strcmp(v, "false"))
        drop_non_ipv4 = 0;
    else
        return nf_fail(err, err_len, "expected true or false", "ipv4_only");
    return 0;
}

size_t nf_state_size(void) { return sizeof(struct flow_cache); }

void nf_state_init(void *state)
{
    struct flow_cache *fc = state;
    memset(fc->bucket, 0, sizeof fc->bucket);
    fc->free_list = 0;
    for (uint32_t i = FM_POOL; i-- > 0;) {
        fc->pool[i].next = fc->free_list;
        fc->free_list = &fc->pool[i];
    }
}

/* Unlink every idle record of one chain onto the free list. */
static void reclaim_chain(struct flow_cache *fc, struct flow_rec **link, uint64_t now)
{
    while (*link) {
        struct flow_rec *r = *link;
        if (now > r->last_ns && now - r->last_ns > idle_timeout_ns) {
            *link = r->next;
            r->next = fc->free_list;
            fc->free_list = r;
            fc->recycled++;
        } else {
            link = &r->next;
        }
    }
}

static struct flow_rec *flow_get(struct flow_cache *fc, const struct nf_flow5 *key, uint64_t now)
{
    uint32_t b = nf_hash_bytes(key, sizeof *key) & (FM_BUCKETS - 1);
    struct flow_rec *r;

    for (r = fc->bucket[b]; r; r = r->next)
        if (memcmp(&r->key, key, sizeof *key) == 0)
            return r;
    if (!fc->free_list)
        reclaim_chain(fc, &fc->bucket[b], now);
    if (!fc->free_list)
        return 0;
    r = fc->free_list;
    fc->free_list = r->next;
    memset(r, 0, sizeof *r);
    r->key = *key;
    r->first_ns = now;
    r->next = fc->bucket[b];
    fc->bucket[b] = r;
    return r;
}

int32_t nf_process(struct nf_ctx *ctx, struct nf_packet *pkt)
{
    struct flow_cache *fc = ctx->state;
    struct nf_headers h;
    struct nf_flow5 key;
    struct flow_rec *rec;

    if (nf_parse(pkt, &h) != 0)
        return NF_DROP;
    if (nf_flow5_from(&h, &key) != 0)
        return drop_non_ipv4 ? NF_DROP : NF_PORT(0);
    rec = flow_get(fc, &key, ctx->now_ns);
    if (!rec) {
        fc->not_recorded++;
        return NF_PORT(0);
    }
    rec->packets++;
    rec->bytes += pkt->len;
    rec->last_ns = ctx->now_ns;
    if (h.tcp)
        rec->tcp_flags |= h.tcp->flags;
    return NF_PORT(0);
}

/* Canonical state: counters, then each chain in bucket order, records
 * without their `next` pointers, each chain ended by a zero marker. */
void nf_state_digest(const void *state, void (*emit)(void *cb, const void *bytes, size_t len), void *cb)
{
    const struct flow_cache *fc = state;
    static const uint8_t end_of_chain[1] = {0};
    static const uint8_t record_mark[1] = {1};

    emit(cb, &fc->recycled, sizeof fc->recycled);
    emit(cb, &fc->not_recorded, sizeof fc->not_recorded);
    for (uint32_t b = 0; b < FM_BUCKETS; b++) {
        for (const struct flow_rec *r = fc->bucket[b]; r; r = r->next) {
            emit(cb, record_mark, 1);
            emit(cb, &r->key, sizeof r->key);
            emit(cb, &r->packets, sizeof r->packets);
            emit(cb, &r->bytes, sizeof r->bytes);
            emit(cb, &r->first_ns, sizeof r->first_ns);
            emit(cb, &r->last_ns, sizeof r->last_ns);
            emit(cb, &r->tcp_flags, sizeof r->tcp_flags);
        }
        emit(cb, end_of_chain, 1);
    }
}
