/*
 * maglev: a Maglev load balancer (Eisenbud et al., NSDI'16; the FLASH test
 * NF). nf_init builds the consistent-hashing lookup table of `table_size`
 * entries (a prime) from the configured backends with Maglev's permutation
 * population; the table is configuration, read-only afterwards.
 *
 * Per-flow state is the connection table: IPv4 5-tuple -> backend index in
 * an nf.h flow table. A flow's first packet picks its backend from the
 * lookup table and records it; later packets only read the entry, so state
 * is written once per flow and a flow keeps its backend even if the table
 * would map it elsewhere. The NF rewrites the destination IP and MAC to the
 * backend's, fixing the IP and L4 checksums; non-IPv4 frames pass.
 *
 * Config: backends (list of {ip, mac, port}, 1..256; `port` is the output
 * port packets for that backend leave on, default 0, so a DAG can fan out
 * per backend), table_size (prime, default 65537, at most 65537).
 */
#include "nf.h"
#include <stdio.h>

#define MAGLEV_MAX_BACKENDS 256
#define MAGLEV_MAX_TABLE 65537u
#define MAGLEV_CONN_CAPACITY 65536

struct backend {
    uint32_t ip; /* host order */
    uint8_t mac[6];
    uint16_t port; /* output port for this backend's packets */
};

static struct backend backends[MAGLEV_MAX_BACKENDS];
static uint32_t n_backends;
static uint32_t table_size = MAGLEV_MAX_TABLE;
static uint16_t lookup_table[MAGLEV_MAX_TABLE];

static struct nf_info maglev_info = {NF_ABI_VERSION, "maglev", 1};

struct conn_entry {
    uint16_t backend;
};

struct maglev_state {
    NF_FTABLE(struct nf_flow5, struct conn_entry, MAGLEV_CONN_CAPACITY) conns;
    uint64_t untracked;
};

const struct nf_info *nf_describe(void) { return &maglev_info; }

static uint32_t seeded_hash(const void *data, uint32_t len, uint32_t seed)
{
    const uint8_t *p = data;
    uint32_t h = 2166136261u ^ seed;
    for (uint32_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 16777619u;
    }
    h ^= h >> 15;
    h *= 0x2c1b3c6du;
    h ^= h >> 12;
    return h;
}

static int is_prime(uint32_t n)
{
    if (n < 2)
        return 0;
    for (uint32_t d = 2; d * d <= n; d++)
        if (n % d == 0)
            return 0;
    return 1;
}

/* Maglev's population: backends take turns claiming their next preferred slot. */
static void populate(void)
{
    static uint32_t offset[MAGLEV_MAX_BACKENDS], skip[MAGLEV_MAX_BACKENDS], next[MAGLEV_MAX_BACKENDS];
    uint32_t filled = 0;

    for (uint32_t i = 0; i < n_backends; i++) {
        offset[i] = seeded_hash(&backends[i].ip, 4, 0x9e3779b9u) % table_size;
        skip[i] = seeded_hash(&backends[i].ip, 4, 0x85ebca6bu) % (table_size - 1) + 1;
        next[i] = 0;
    }
    for (uint32_t j = 0; j < table_size; j++)
        lookup_table[j] = 0xffff;
    for (;;) {
        for (uint32_t i = 0; i < n_backends; i++) {
            uint32_t c = (uint32_t)(((uint64_t)offset[i] + (uint64_t)next[i] * skip[i]) % table_size);
            while (lookup_table[c] != 0xffff) {
                next[i]++;
                c = (uint32_t)(((uint64_t)offset[i] + (uint64_t)next[i] * skip[i]) % table_size);
            }
            lookup_table[c] = (uint16_t)i;
            next[i]++;
            if (++filled == table_size)
                return;
        }
    }
}

int nf_init(const struct nf_config *cfg, char *err, size_t err_len)
{
    char key[64];
    uint64_t n, m;

    if (!nf_config_get(cfg, "backends.len"))
        return nf_fail(err, err_len, "missing required list", "backends");
    if (nf_config_u64(cfg, "backends.len", 0, &n) || n == 0 || n > MAGLEV_MAX_BACKENDS)
        return nf_fail(err, err_len, "expected 1..256 backends", "backends");
    if (nf_config_u64(cfg, "table_size", MAGLEV_MAX_TABLE, &m) || m > MAGLEV_MAX_TABLE || m < n ||
        !is_prime((uint32_t)m))
        return nf_fail(err, err_len, "expected a prime >= the number of backends and <= 65537", "table_size");
    n_backends = (uint32_t)n;
    table_size = (uint32_t)m;
    for (uint32_t i = 0; i < n_backends; i++) {
        snprintf(key, sizeof key, "backends.%u.ip", i);
        if (nf_parse_ipv4(nf_config_get(cfg, key) ? nf_config_get(cfg, key) : "", &backends[i].ip))
            return nf_fail(err, err_len, "expected a dotted-quad IPv4 address", key);
        snprintf(key, sizeof key, "backends.%u.mac", i);
        if (nf_parse_mac(nf_config_get(cfg, key) ? nf_config_get(cfg, key) : "", backends[i].mac))
            return nf_fail(err, err_len, "expected a MAC address aa:bb:cc:dd:ee:ff", key);
        snprintf(key, sizeof key, "backends.%u.port", i);
        if (nf_config_u64(cfg, key, 0, &m) || m > 63)
            return nf_fail(err, err_len, "expected an output port 0..63", key);
        backends[i].port = (uint16_t)m;
        if (backends[i].port + 1u > maglev_info.n_ports)
            maglev_info.n_ports = backends[i].port + 1u;
        for (uint32_t j = 0; j < i; j++)
            if (backends[j].ip == backends[i].ip) {
                snprintf(key, sizeof key, "backends.%u.ip", i);
                return nf_fail(err, err_len, "duplicate backend address", key);
            }
    }
    populate();
    return 0;
}

size_t nf_state_size(void) { return sizeof(struct maglev_state); }

void nf_state_init(void *state)
{
    struct maglev_state *st = state;
    NF_FTABLE_INIT(&st->conns);
}

int32_t nf_process(struct nf_ctx *ctx, struct nf_packet *pkt)
{
    struct maglev_state *st = ctx->state;
    struct nf_headers h;
    struct nf_flow5 flow;
    struct conn_entry *conn;
    const struct backend *be;
    uint32_t old_daddr, new_daddr;
    uint16_t chosen;

    if (nf_parse(pkt, &h) != 0)
        return NF_DROP;
    if (nf_flow5_from(&h, &flow) != 0)
        return NF_PORT(0);

    conn = nf_ftable_lookup(&st->conns.hdr, &flow);
    if (conn) {
        chosen = conn->backend;
    } else {
        chosen = lookup_table[nf_hash_bytes(&flow, sizeof flow) % table_size];
        conn = nf_ftable_insert(&st->conns.hdr, &flow);
        if (conn)
            conn->backend = chosen;
        else
            st->untracked++;
    }
    if (chosen >= n_backends)
        return NF_DROP;
    be = &backends[chosen];

    memcpy(h.eth->dst, be->mac, 6);
    old_daddr = h.ip4->daddr;
    new_daddr = nf_htonl(be->ip);
    h.ip4->daddr = new_daddr;
    h.ip4->check = nf_csum_replace32(h.ip4->check, old_daddr, new_daddr);
    if (h.tcp) {
        h.tcp->check = nf_csum_replace32(h.tcp->check, old_daddr, new_daddr);
    } else if (h.udp && h.udp->check) {
        uint16_t c = nf_csum_replace32(h.udp->check, old_daddr, new_daddr);
        h.udp->check = c ? c : 0xffff;
    }
    return NF_PORT(be->port);
}
