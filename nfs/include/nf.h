/*
 * nf.h — the nfc network-function ABI, version 1.
 *
 * An NF is a shared object that exports the entry points below. The runtime
 * (flash-rt's reference executor or its AF_XDP hosts) loads it, calls
 * nf_init() once with the configuration from chain.yaml, allocates one or
 * more zeroed state instances of nf_state_size() bytes, calls
 * nf_state_init() on each, and then nf_process() once per packet.
 *
 * Rules of the ABI (the analyzer, the reducer and the placer rely on them):
 *  - Configuration (rules, thresholds) lives in globals written only by
 *    nf_init(); they are read-only afterwards. The reducer turns them into
 *    constants.
 *  - Per-flow state lives only in the state instance passed in ctx->state.
 *    The runtime decides at load time whether each worker gets its own
 *    instance (shared-nothing) or all workers use one instance (shared);
 *    in shared mode the runtime serialises nf_process() calls on that
 *    instance, so NFs need no locking of their own.
 *  - State instances must not hold absolute pointers into themselves unless
 *    the NF exports nf_state_digest(), because the runtime digests state by
 *    its bytes (pointer values differ between runs).
 *  - nf_process() must not read or write outside pkt->data[0 .. pkt->len)
 *    (it may grow pkt->len up to pkt->cap) and must not allocate.
 *  - Per-packet scratch that is not state (e.g. a decoded header struct)
 *    may live in a thread-local global.
 */
#ifndef NFC_NF_H
#define NFC_NF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define NF_ABI_VERSION 1u

/* ---------------------------------------------------------------- verdicts */

/* nf_process returns a verdict: NF_DROP, or an output port number >= 0. */
#define NF_DROP (-1)
#define NF_PORT(n) ((int32_t)(n))

/* ------------------------------------------------------------------ packet */

struct nf_packet {
    uint8_t *data;    /* first byte of the Ethernet header */
    uint32_t len;     /* bytes of valid frame data */
    uint32_t cap;     /* bytes available at data (len may grow up to cap) */
    uint32_t in_port; /* port of the NF the packet arrived on */
    uint32_t _reserved;
};

/* Per-call context. */
struct nf_ctx {
    void *state;      /* this NF's state instance (nf_state_size() bytes) */
    uint64_t now_ns;  /* packet timestamp: pcap time offline, clock on line */
    uint32_t worker;  /* index of the worker thread calling */
    uint32_t n_workers;
};

/* ------------------------------------------------------------------ config */

/*
 * Configuration is a flat list of key/value strings. Nested YAML in
 * chain.yaml is flattened with dots and list indices, e.g.
 *   rules: [{src: 10.0.0.0/8, action: drop}]
 * becomes "rules.0.src" = "10.0.0.0/8", "rules.0.action" = "drop", and the
 * list length is "rules.len" = "1".
 */
struct nf_kv {
    const char *key;
    const char *value;
};

struct nf_config {
    const struct nf_kv *items;
    uint32_t n_items;
};

/* Static description of an NF. */
struct nf_info {
    uint32_t abi_version; /* NF_ABI_VERSION */
    const char *name;
    uint32_t n_ports;     /* output ports used (>= 1) */
};

/* ------------------------------------------------------- entry points */

/* Describe the NF. Required. */
const struct nf_info *nf_describe(void);
/* Parse configuration into globals. Returns 0, or -1 with a message in err. */
int nf_init(const struct nf_config *cfg, char *err, size_t err_len);
/* Bytes of one state instance (0 for stateless NFs). */
size_t nf_state_size(void);
/* Initialise a zeroed state instance. Optional: a zeroed instance is valid
 * if the NF does not export it. */
void nf_state_init(void *state);
/* Process one packet; returns NF_DROP or an output port. */
int32_t nf_process(struct nf_ctx *ctx, struct nf_packet *pkt);
/* Optional: feed a canonical encoding of the state to `emit`, for NFs whose
 * state holds pointers. */
void nf_state_digest(const void *state, void (*emit)(void *cb, const void *bytes, size_t len), void *cb);
/* Release global resources. Optional. */
void nf_fini(void);

/* ------------------------------------------------------- config helpers */

static inline const char *nf_config_get(const struct nf_config *cfg, const char *key)
{
    if (!cfg)
        return 0;
    for (uint32_t i = 0; i < cfg->n_items; i++)
        if (cfg->items[i].key && strcmp(cfg->items[i].key, key) == 0)
            return cfg->items[i].value;
    return 0;
}

/* Parse an unsigned decimal or 0x-hex integer; returns 0 on success. */
static inline int nf_parse_u64(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    int base = 10, any = 0;
    if (!s)
        return -1;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    }
    for (; *s; s++) {
        int d;
        if (*s >= '0' && *s <= '9')
            d = *s - '0';
        else if (base == 16 && *s >= 'a' && *s <= 'f')
            d = *s - 'a' + 10;
        else if (base == 16 && *s >= 'A' && *s <= 'F')
            d = *s - 'A' + 10;
        else
            return -1;
        if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
            return -1;
        v = v * (uint64_t)base + (uint64_t)d;
        any = 1;
    }
    if (!any)
        return -1;
    *out = v;
    return 0;
}

/* Read an integer config value with a default; -1 if present but invalid. */
static inline int nf_config_u64(const struct nf_config *cfg, const char *key, uint64_t dflt, uint64_t *out)
{
    const char *v = nf_config_get(cfg, key);
    if (!v) {
        *out = dflt;
        return 0;
    }
    return nf_parse_u64(v, out);
}

/* Parse dotted-quad IPv4 into host byte order. Returns 0 on success. */
static inline int nf_parse_ipv4(const char *s, uint32_t *out)
{
    uint32_t v = 0;
    for (int part = 0; part < 4; part++) {
        uint32_t octet = 0;
        int digits = 0;
        while (*s >= '0' && *s <= '9') {
            octet = octet * 10 + (uint32_t)(*s - '0');
            if (++digits > 3 || octet > 255)
                return -1;
            s++;
        }
        if (!digits)
            return -1;
        v = (v << 8) | octet;
        if (part < 3) {
            if (*s != '.')
                return -1;
            s++;
        }
    }
    if (*s)
        return -1;
    *out = v;
    return 0;
}

/* Parse "a.b.c.d/len", "a.b.c.d" (/32) or "*" (/0) into addr/mask (host order). */
static inline int nf_parse_prefix(const char *s, uint32_t *addr, uint32_t *mask)
{
    char buf[32];
    size_t n;
    const char *slash;
    uint64_t len = 32;
    if (!s)
        return -1;
    if (strcmp(s, "*") == 0 || strcmp(s, "any") == 0) {
        *addr = 0;
        *mask = 0;
        return 0;
    }
    slash = strchr(s, '/');
    n = slash ? (size_t)(slash - s) : strlen(s);
    if (n >= sizeof buf)
        return -1;
    memcpy(buf, s, n);
    buf[n] = 0;
    if (nf_parse_ipv4(buf, addr))
        return -1;
    if (slash && (nf_parse_u64(slash + 1, &len) || len > 32))
        return -1;
    *mask = len == 0 ? 0 : (uint32_t)(0xffffffffu << (32 - len));
    *addr &= *mask;
    return 0;
}

/* Parse "aa:bb:cc:dd:ee:ff". Returns 0 on success. */
static inline int nf_parse_mac(const char *s, uint8_t mac[6])
{
    for (int i = 0; i < 6; i++) {
        unsigned v = 0;
        for (int j = 0; j < 2; j++, s++) {
            char c = *s;
            v <<= 4;
            if (c >= '0' && c <= '9')
                v |= (unsigned)(c - '0');
            else if (c >= 'a' && c <= 'f')
                v |= (unsigned)(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F')
                v |= (unsigned)(c - 'A' + 10);
            else
                return -1;
        }
        mac[i] = (uint8_t)v;
        if (i < 5) {
            if (*s != ':')
                return -1;
            s++;
        }
    }
    return *s ? -1 : 0;
}

/* Copy a formatted error into err (no printf dependency needed by callers). */
static inline int nf_fail(char *err, size_t err_len, const char *msg, const char *key)
{
    size_t n = 0;
    if (!err || !err_len)
        return -1;
    for (const char *p = msg; *p && n + 1 < err_len; p++)
        err[n++] = *p;
    if (key) {
        const char *sep = ": ";
        for (const char *p = sep; *p && n + 1 < err_len; p++)
            err[n++] = *p;
        for (const char *p = key; *p && n + 1 < err_len; p++)
            err[n++] = *p;
    }
    err[n] = 0;
    return -1;
}

/* --------------------------------------------------------- byte order */

static inline uint16_t nf_ntohs(uint16_t v) { return (uint16_t)((v >> 8) | (v << 8)); }
static inline uint16_t nf_htons(uint16_t v) { return nf_ntohs(v); }
static inline uint32_t nf_ntohl(uint32_t v)
{
    return ((v & 0xffu) << 24) | ((v & 0xff00u) << 8) | ((v >> 8) & 0xff00u) | (v >> 24);
}
static inline uint32_t nf_htonl(uint32_t v) { return nf_ntohl(v); }

/* ------------------------------------------------------------ headers */

#define NF_ETH_P_IPV4 0x0800
#define NF_ETH_P_ARP 0x0806
#define NF_ETH_P_VLAN 0x8100
#define NF_ETH_P_QINQ 0x88a8
#define NF_ETH_P_IPV6 0x86dd

#define NF_IPPROTO_ICMP 1
#define NF_IPPROTO_TCP 6
#define NF_IPPROTO_UDP 17
#define NF_IPPROTO_ICMPV6 58

/* Wire layouts (network byte order in memory). */
struct nf_eth {
    uint8_t dst[6];
    uint8_t src[6];
    uint16_t type;
} __attribute__((packed));

struct nf_vlan {
    uint16_t tci;
    uint16_t type;
} __attribute__((packed));

struct nf_arp {
    uint16_t htype, ptype;
    uint8_t hlen, plen;
    uint16_t oper;
    uint8_t sha[6];
    uint32_t spa;
    uint8_t tha[6];
    uint32_t tpa;
} __attribute__((packed));

struct nf_ipv4 {
    uint8_t ver_ihl;
    uint8_t tos;
    uint16_t tot_len;
    uint16_t id;
    uint16_t frag_off;
    uint8_t ttl;
    uint8_t proto;
    uint16_t check;
    uint32_t saddr;
    uint32_t daddr;
} __attribute__((packed));

struct nf_ipv6 {
    uint32_t ver_tc_flow;
    uint16_t payload_len;
    uint8_t next_hdr;
    uint8_t hop_limit;
    uint8_t saddr[16];
    uint8_t daddr[16];
} __attribute__((packed));

struct nf_tcp {
    uint16_t sport;
    uint16_t dport;
    uint32_t seq;
    uint32_t ack;
    uint8_t doff_res;
    uint8_t flags;
    uint16_t window;
    uint16_t check;
    uint16_t urg;
} __attribute__((packed));

#define NF_TCP_FIN 0x01
#define NF_TCP_SYN 0x02
#define NF_TCP_RST 0x04
#define NF_TCP_PSH 0x08
#define NF_TCP_ACK 0x10

struct nf_udp {
    uint16_t sport;
    uint16_t dport;
    uint16_t len;
    uint16_t check;
} __attribute__((packed));

struct nf_icmp {
    uint8_t type;
    uint8_t code;
    uint16_t check;
    uint16_t id;
    uint16_t seq;
} __attribute__((packed));

/*
 * Result of nf_parse(): pointers into the packet (NULL when a layer is
 * absent or truncated) and the decoded flow fields in host byte order.
 */
struct nf_headers {
    struct nf_eth *eth;
    uint32_t n_vlans;      /* VLAN tags skipped (at most NF_MAX_VLANS) */
    uint16_t ethertype;    /* innermost ethertype, host order */
    uint16_t l3_off;       /* offset of the L3 header */
    struct nf_arp *arp;
    struct nf_ipv4 *ip4;
    struct nf_ipv6 *ip6;
    uint32_t l4_off;       /* offset of the L4 header, 0 if none */
    uint8_t proto;         /* L4 protocol, 0 if none */
    uint8_t is_fragment;   /* non-first fragment: no L4 header present */
    struct nf_tcp *tcp;
    struct nf_udp *udp;
    struct nf_icmp *icmp;
    uint32_t payload_off;
    uint32_t payload_len;
};

#define NF_MAX_VLANS 2

/* Parse L2..L4 with bounds checks; never reads past pkt->len. Returns 0 when
 * an Ethernet header was found, -1 for a runt frame. */
static inline int nf_parse(const struct nf_packet *pkt, struct nf_headers *h)
{
    uint32_t off = sizeof(struct nf_eth);
    uint16_t type;
    memset(h, 0, sizeof *h);
    if (!pkt || pkt->len < sizeof(struct nf_eth))
        return -1;
    h->eth = (struct nf_eth *)pkt->data;
    type = nf_ntohs(h->eth->type);
    while ((type == NF_ETH_P_VLAN || type == NF_ETH_P_QINQ) && h->n_vlans < NF_MAX_VLANS) {
        if (pkt->len < off + sizeof(struct nf_vlan))
            return 0;
        type = nf_ntohs(((struct nf_vlan *)(pkt->data + off))->type);
        off += sizeof(struct nf_vlan);
        h->n_vlans++;
    }
    h->ethertype = type;
    h->l3_off = (uint16_t)off;
    if (type == NF_ETH_P_ARP) {
        if (pkt->len >= off + sizeof(struct nf_arp))
            h->arp = (struct nf_arp *)(pkt->data + off);
        return 0;
    }
    if (type == NF_ETH_P_IPV4) {
        struct nf_ipv4 *ip;
        uint32_t ihl, tot;
        if (pkt->len < off + sizeof(struct nf_ipv4))
            return 0;
        ip = (struct nf_ipv4 *)(pkt->data + off);
        ihl = (uint32_t)(ip->ver_ihl & 0x0f) * 4u;
        tot = nf_ntohs(ip->tot_len);
        if ((ip->ver_ihl >> 4) != 4 || ihl < 20 || pkt->len < off + ihl || tot < ihl)
            return 0;
        h->ip4 = ip;
        h->proto = ip->proto;
        if (nf_ntohs(ip->frag_off) & 0x1fff) {
            h->is_fragment = 1;
            return 0;
        }
        off += ihl;
    } else if (type == NF_ETH_P_IPV6) {
        if (pkt->len < off + sizeof(struct nf_ipv6))
            return 0;
        h->ip6 = (struct nf_ipv6 *)(pkt->data + off);
        if ((nf_ntohl(h->ip6->ver_tc_flow) >> 28) != 6) {
            h->ip6 = 0;
            return 0;
        }
        h->proto = h->ip6->next_hdr;
        off += sizeof(struct nf_ipv6);
    } else {
        return 0;
    }
    h->l4_off = off;
    if (h->proto == NF_IPPROTO_TCP && pkt->len >= off + sizeof(struct nf_tcp)) {
        uint32_t doff = (uint32_t)(((struct nf_tcp *)(pkt->data + off))->doff_res >> 4) * 4u;
        if (doff >= 20 && pkt->len >= off + doff) {
            h->tcp = (struct nf_tcp *)(pkt->data + off);
            off += doff;
        }
    } else if (h->proto == NF_IPPROTO_UDP && pkt->len >= off + sizeof(struct nf_udp)) {
        h->udp = (struct nf_udp *)(pkt->data + off);
        off += sizeof(struct nf_udp);
    } else if ((h->proto == NF_IPPROTO_ICMP || h->proto == NF_IPPROTO_ICMPV6) &&
               pkt->len >= off + sizeof(struct nf_icmp)) {
        h->icmp = (struct nf_icmp *)(pkt->data + off);
        off += sizeof(struct nf_icmp);
    }
    h->payload_off = off;
    h->payload_len = pkt->len > off ? pkt->len - off : 0;
    return 0;
}

/* The IPv4 5-tuple in host byte order. Zero-initialise before filling so
 * that it can be used as a hash-table key byte for byte. */
struct nf_flow5 {
    uint32_t src_ip;
    uint32_t dst_ip;
    uint16_t src_port;
    uint16_t dst_port;
    uint8_t proto;
    uint8_t _pad[3];
};

/* Fill a 5-tuple from parsed IPv4 headers; returns -1 without IPv4. */
static inline int nf_flow5_from(const struct nf_headers *h, struct nf_flow5 *k)
{
    memset(k, 0, sizeof *k);
    if (!h->ip4)
        return -1;
    k->src_ip = nf_ntohl(h->ip4->saddr);
    k->dst_ip = nf_ntohl(h->ip4->daddr);
    k->proto = h->proto;
    if (h->tcp) {
        k->src_port = nf_ntohs(h->tcp->sport);
        k->dst_port = nf_ntohs(h->tcp->dport);
    } else if (h->udp) {
        k->src_port = nf_ntohs(h->udp->sport);
        k->dst_port = nf_ntohs(h->udp->dport);
    }
    return 0;
}

/* Internet checksum over a buffer (for NFs that rewrite headers). */
static inline uint16_t nf_csum(const void *buf, uint32_t len, uint32_t seed)
{
    const uint8_t *p = (const uint8_t *)buf;
    uint32_t sum = seed;
    while (len > 1) {
        sum += (uint32_t)((p[0] << 8) | p[1]);
        p += 2;
        len -= 2;
    }
    if (len)
        sum += (uint32_t)(p[0] << 8);
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)~sum;
}

/*
 * Incremental checksum update (RFC 1624, eqn. 3) for NFs that rewrite one
 * 16- or 32-bit field. All arguments are raw values as loaded from the
 * packet (network byte order in memory); the one's-complement sum does not
 * depend on byte order as long as every operand uses the same one.
 */
static inline uint16_t nf_csum_replace16(uint16_t check, uint16_t old_v, uint16_t new_v)
{
    uint32_t sum = (uint32_t)(uint16_t)~check + (uint32_t)(uint16_t)~old_v + (uint32_t)new_v;
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)~sum;
}

static inline uint16_t nf_csum_replace32(uint16_t check, uint32_t old_v, uint32_t new_v)
{
    check = nf_csum_replace16(check, (uint16_t)(old_v & 0xffff), (uint16_t)(new_v & 0xffff));
    return nf_csum_replace16(check, (uint16_t)(old_v >> 16), (uint16_t)(new_v >> 16));
}

/* -------------------------------------------------------- flow table */

/*
 * A fixed-capacity open-addressing hash table (linear probing, backward-shift
 * deletion) stored inline in a state instance, so it holds no pointers.
 * Declare with NF_FTABLE(KEY_T, VAL_T, CAP) as a member of the state struct,
 * initialise with NF_FTABLE_INIT(&st->table) in nf_state_init, and use:
 *   VAL_T *v = nf_ftable_lookup(&st->table.hdr, &key);
 *   VAL_T *v = nf_ftable_insert(&st->table.hdr, &key);  // zeroed if new; NULL if full (7/8 load)
 *   nf_ftable_remove(&st->table.hdr, &key);
 * Keys are compared byte for byte: zero them before filling.
 */
struct nf_ftable {
    uint32_t key_size;
    uint32_t val_size;
    uint32_t capacity;
    uint32_t count;
    uint32_t stride;   /* bytes per slot */
    uint32_t key_off;  /* offset of the key within a slot */
    uint32_t val_off;  /* offset of the value within a slot */
    uint32_t _pad;
};

#define NF_FTABLE(KEY_T, VAL_T, CAP)                                                               \
    struct {                                                                                       \
        struct nf_ftable hdr;                                                                      \
        struct {                                                                                   \
            uint8_t used;                                                                          \
            KEY_T key;                                                                             \
            VAL_T val;                                                                             \
        } slots[CAP];                                                                              \
    }

#define NF_FTABLE_INIT(tbl)                                                                        \
    nf_ftable_init(&(tbl)->hdr, (uint32_t)sizeof((tbl)->slots[0].key),                             \
                   (uint32_t)sizeof((tbl)->slots[0].val),                                          \
                   (uint32_t)(sizeof((tbl)->slots) / sizeof((tbl)->slots[0])),                     \
                   (uint32_t)sizeof((tbl)->slots[0]),                                              \
                   (uint32_t)((const uint8_t *)&(tbl)->slots[0].key - (const uint8_t *)&(tbl)->slots[0]), \
                   (uint32_t)((const uint8_t *)&(tbl)->slots[0].val - (const uint8_t *)&(tbl)->slots[0]))

static inline void nf_ftable_init(struct nf_ftable *t, uint32_t key_size, uint32_t val_size, uint32_t capacity,
                                  uint32_t stride, uint32_t key_off, uint32_t val_off)
{
    t->key_size = key_size;
    t->val_size = val_size;
    t->capacity = capacity;
    t->count = 0;
    t->stride = stride;
    t->key_off = key_off;
    t->val_off = val_off;
    memset((uint8_t *)(t + 1), 0, (size_t)stride * capacity);
}

/* FNV-1a over the key bytes, finalised with a murmur-style mix. */
static inline uint32_t nf_hash_bytes(const void *key, uint32_t len)
{
    const uint8_t *p = (const uint8_t *)key;
    uint32_t h = 2166136261u;
    for (uint32_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 16777619u;
    }
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    return h;
}

static inline uint8_t *nf_ftable_slot(struct nf_ftable *t, uint32_t i)
{
    return (uint8_t *)(t + 1) + (size_t)i * t->stride;
}

static inline void *nf_ftable_lookup(struct nf_ftable *t, const void *key)
{
    uint32_t i = nf_hash_bytes(key, t->key_size) % t->capacity;
    for (uint32_t n = 0; n < t->capacity; n++) {
        uint8_t *s = nf_ftable_slot(t, i);
        if (!s[0])
            return 0;
        if (memcmp(s + t->key_off, key, t->key_size) == 0)
            return s + t->val_off;
        i = i + 1 == t->capacity ? 0 : i + 1;
    }
    return 0;
}

/* Inserts stop at 7/8 load (NF_FTABLE_MAX_LOAD): beyond it linear probing
 * degrades toward full-table scans, so a table that is "full" returns NULL
 * while misses still terminate after a few probes. */
#define NF_FTABLE_MAX_LOAD(cap) ((cap) - (cap) / 8u)

static inline void *nf_ftable_insert(struct nf_ftable *t, const void *key)
{
    uint32_t i = nf_hash_bytes(key, t->key_size) % t->capacity;
    for (uint32_t n = 0; n < t->capacity; n++) {
        uint8_t *s = nf_ftable_slot(t, i);
        if (!s[0]) {
            if (t->count >= NF_FTABLE_MAX_LOAD(t->capacity))
                return 0;
            s[0] = 1;
            memcpy(s + t->key_off, key, t->key_size);
            memset(s + t->val_off, 0, t->val_size);
            t->count++;
            return s + t->val_off;
        }
        if (memcmp(s + t->key_off, key, t->key_size) == 0)
            return s + t->val_off;
        i = i + 1 == t->capacity ? 0 : i + 1;
    }
    return 0;
}

static inline int nf_ftable_remove(struct nf_ftable *t, const void *key)
{
    uint32_t cap = t->capacity;
    uint32_t i = nf_hash_bytes(key, t->key_size) % cap;
    uint32_t n;
    for (n = 0; n < cap; n++) {
        uint8_t *s = nf_ftable_slot(t, i);
        if (!s[0])
            return -1;
        if (memcmp(s + t->key_off, key, t->key_size) == 0)
            break;
        i = i + 1 == cap ? 0 : i + 1;
    }
    if (n == cap)
        return -1;
    /* Backward-shift deletion keeps probe sequences intact without tombstones. */
    for (;;) {
        uint32_t j = i;
        uint8_t *hole = nf_ftable_slot(t, i);
        hole[0] = 0;
        for (;;) {
            uint8_t *s;
            uint32_t home;
            j = j + 1 == cap ? 0 : j + 1;
            s = nf_ftable_slot(t, j);
            if (!s[0]) {
                t->count--;
                return 0;
            }
            home = nf_hash_bytes(s + t->key_off, t->key_size) % cap;
            /* Move s into the hole unless its home lies cyclically in (i, j]. */
            if ((i <= j) ? (home <= i || home > j) : (home <= i && home > j)) {
                memcpy(hole, s, t->stride);
                i = j;
                break;
            }
        }
    }
}

#endif /* NFC_NF_H */
