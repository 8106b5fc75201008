/*
 * pkt.h — a small packet builder and assertion kit for the NF tests.
 *
 * Behavioural tests (test_<nf>.c), the robustness harness (robust.c) and the
 * fuzzing harness (../../fuzz/fuzz_nf.c) are compiled together with one NF's
 * sources. This header builds well-formed frames (Ethernet, 802.1Q/QinQ,
 * IPv4 with options and fragments, TCP/UDP/ICMP with correct checksums,
 * ARP, IPv6), runs them through nf_process from an exactly-sized heap copy
 * (so AddressSanitizer catches any access past pkt->len), and offers CHECK
 * macros that report file:line and keep going.
 */
#ifndef NFC_TEST_PKT_H
#define NFC_TEST_PKT_H

#include "nf.h"
#include <stdio.h>
#include <stdlib.h>

#pragma weak nf_state_init
#pragma weak nf_state_digest
#pragma weak nf_fini

/* ------------------------------------------------------------ assertions */

static int pkt_failures;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);              \
            pkt_failures++;                                                                        \
        }                                                                                          \
    } while (0)

#define CHECK_EQ(a, b)                                                                             \
    do {                                                                                           \
        long long _a = (long long)(a), _b = (long long)(b);                                        \
        if (_a != _b) {                                                                            \
            fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %lld, expected %s == %lld\n", __FILE__,  \
                    __LINE__, #a, _a, #b, _b);                                                     \
            pkt_failures++;                                                                        \
        }                                                                                          \
    } while (0)

static inline int test_finish(const char *name)
{
    if (pkt_failures) {
        fprintf(stderr, "%s: %d check(s) failed\n", name, pkt_failures);
        return 1;
    }
    printf("%s: ok\n", name);
    return 0;
}

/* ---------------------------------------------------------------- config */

#define KV(k, v) {(k), (v)}
#define CONFIG(...)                                                                                \
    (struct nf_config)                                                                             \
    {                                                                                              \
        (const struct nf_kv[]){__VA_ARGS__},                                                       \
            (uint32_t)(sizeof((const struct nf_kv[]){__VA_ARGS__}) / sizeof(struct nf_kv))         \
    }

static char pkt_last_err[256];

/* nf_init with a config; returns its result and keeps the message. */
static inline int init_nf(struct nf_config cfg)
{
    pkt_last_err[0] = 0;
    return nf_init(&cfg, pkt_last_err, sizeof pkt_last_err);
}

/* A fresh zeroed, initialised state instance (never NULL). */
static inline void *new_state(void)
{
    size_t n = nf_state_size();
    void *st = calloc(1, n ? n : 1);
    if (!st) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    if (nf_state_init)
        nf_state_init(st);
    return st;
}

/* ------------------------------------------------------------------ run */

/* Run one frame through the NF from an exactly-sized heap buffer (cap =
 * len), copying the possibly rewritten frame back into `frame`. */
static inline int32_t run_pkt(void *state, uint8_t *frame, uint32_t len, uint32_t in_port, uint64_t now_ns)
{
    uint8_t *heap = malloc(len ? len : 1);
    struct nf_packet pkt;
    struct nf_ctx ctx;
    int32_t verdict;
    if (!heap)
        exit(2);
    memcpy(heap, frame, len);
    pkt.data = heap;
    pkt.len = len;
    pkt.cap = len;
    pkt.in_port = in_port;
    pkt._reserved = 0;
    ctx.state = state;
    ctx.now_ns = now_ns;
    ctx.worker = 0;
    ctx.n_workers = 1;
    verdict = nf_process(&ctx, &pkt);
    if (pkt.len > len) {
        fprintf(stderr, "nf_process grew a packet past its capacity\n");
        pkt_failures++;
    }
    memcpy(frame, heap, len);
    free(heap);
    return verdict;
}

/* --------------------------------------------------------------- builder */

#define PKT_MAX 2048
#define MS 1000000ull
#define SEC 1000000000ull

static inline uint32_t ip4(unsigned a, unsigned b, unsigned c, unsigned d)
{
    return (uint32_t)a << 24 | (uint32_t)b << 16 | (uint32_t)c << 8 | (uint32_t)d;
}

struct pkt_spec {
    uint8_t src_mac[6], dst_mac[6];
    int vlans;             /* 0, 1 (802.1Q) or 2 (802.1ad + 802.1Q) */
    int ipv6;              /* build an IPv6 header instead of IPv4 */
    uint32_t src_ip, dst_ip;
    uint8_t proto;         /* NF_IPPROTO_* */
    uint16_t sport, dport;
    uint8_t tcp_flags;
    uint8_t icmp_type;
    uint16_t icmp_id, icmp_seq;
    const void *payload;
    uint32_t payload_len;
    uint32_t ip_opts_len;  /* bytes of IPv4 options, multiple of 4, <= 40 */
    uint16_t frag;         /* IPv4 flags+offset field, host order */
    uint8_t ttl;
};

/* A default TCP/UDP/ICMP spec between two hosts. */
static inline struct pkt_spec spec(uint8_t proto, uint32_t src, uint32_t dst, uint16_t sport, uint16_t dport)
{
    struct pkt_spec s;
    static const uint8_t a[6] = {0x02, 0, 0, 0, 0, 0xaa}, b[6] = {0x02, 0, 0, 0, 0, 0xbb};
    memset(&s, 0, sizeof s);
    memcpy(s.src_mac, a, 6);
    memcpy(s.dst_mac, b, 6);
    s.src_ip = src;
    s.dst_ip = dst;
    s.proto = proto;
    s.sport = sport;
    s.dport = dport;
    s.tcp_flags = NF_TCP_ACK;
    s.icmp_type = 8;
    s.ttl = 64;
    return s;
}

static inline void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}
static inline void put32(uint8_t *p, uint32_t v)
{
    put16(p, (uint16_t)(v >> 16));
    put16(p + 2, (uint16_t)v);
}
static inline uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static inline uint32_t get32(const uint8_t *p) { return (uint32_t)get16(p) << 16 | get16(p + 2); }

/* Sum of 16-bit big-endian words, unfolded. */
static inline uint32_t sum16(const uint8_t *p, uint32_t len)
{
    uint32_t s = 0;
    for (; len > 1; p += 2, len -= 2)
        s += (uint32_t)(p[0] << 8 | p[1]);
    if (len)
        s += (uint32_t)(p[0] << 8);
    return s;
}
static inline uint16_t fold(uint32_t s)
{
    while (s >> 16)
        s = (s & 0xffff) + (s >> 16);
    return (uint16_t)~s;
}

/* Offset of the L3 header of a frame built by build(). */
static inline uint32_t l3_offset(const uint8_t *f)
{
    uint32_t off = 14;
    uint16_t t = get16(f + 12);
    while (t == NF_ETH_P_VLAN || t == NF_ETH_P_QINQ) {
        t = get16(f + off + 2);
        off += 4;
    }
    return off;
}

/* Build a frame into buf; returns its length. */
static inline uint32_t build(uint8_t *buf, const struct pkt_spec *s)
{
    uint32_t off = 12, l3, ihl, l4, l4len, hdr;
    memset(buf, 0, PKT_MAX);
    memcpy(buf, s->dst_mac, 6);
    memcpy(buf + 6, s->src_mac, 6);
    if (s->vlans >= 2) {
        put16(buf + off, NF_ETH_P_QINQ);
        put16(buf + off + 2, 100);
        off += 4;
    }
    if (s->vlans >= 1) {
        put16(buf + off, NF_ETH_P_VLAN);
        put16(buf + off + 2, 10);
        off += 4;
    }
    put16(buf + off, s->ipv6 ? NF_ETH_P_IPV6 : NF_ETH_P_IPV4);
    l3 = off + 2;
    ihl = s->ipv6 ? 40 : 20 + s->ip_opts_len;
    l4 = l3 + ihl;
    hdr = s->proto == NF_IPPROTO_TCP ? 20 : s->proto == NF_IPPROTO_UDP || s->proto == NF_IPPROTO_ICMP ? 8 : 0;
    l4len = hdr + s->payload_len;
    if (s->payload_len)
        memcpy(buf + l4 + hdr, s->payload, s->payload_len);
    if (s->proto == NF_IPPROTO_TCP) {
        put16(buf + l4, s->sport);
        put16(buf + l4 + 2, s->dport);
        put32(buf + l4 + 4, 1000);
        buf[l4 + 12] = 5 << 4;
        buf[l4 + 13] = s->tcp_flags;
        put16(buf + l4 + 14, 65535);
    } else if (s->proto == NF_IPPROTO_UDP) {
        put16(buf + l4, s->sport);
        put16(buf + l4 + 2, s->dport);
        put16(buf + l4 + 4, (uint16_t)l4len);
    } else if (s->proto == NF_IPPROTO_ICMP) {
        buf[l4] = s->icmp_type;
        put16(buf + l4 + 4, s->icmp_id);
        put16(buf + l4 + 6, s->icmp_seq);
        put16(buf + l4 + 2, fold(sum16(buf + l4, l4len)));
    }
    if (s->ipv6) {
        buf[l3] = 0x60;
        put16(buf + l3 + 4, (uint16_t)l4len);
        buf[l3 + 6] = s->proto;
        buf[l3 + 7] = s->ttl;
        put32(buf + l3 + 8 + 12, s->src_ip);
        put32(buf + l3 + 24 + 12, s->dst_ip);
        return l4 + l4len;
    }
    buf[l3] = (uint8_t)(0x40 | (ihl / 4));
    put16(buf + l3 + 2, (uint16_t)(ihl + l4len));
    put16(buf + l3 + 4, 0x1234);
    put16(buf + l3 + 6, s->frag);
    buf[l3 + 8] = s->ttl;
    buf[l3 + 9] = s->proto;
    put32(buf + l3 + 12, s->src_ip);
    put32(buf + l3 + 16, s->dst_ip);
    for (uint32_t i = 0; i < s->ip_opts_len; i++)
        buf[l3 + 20 + i] = i + 1 == s->ip_opts_len ? 0 : 1; /* NOPs, then end-of-options */
    put16(buf + l3 + 10, fold(sum16(buf + l3, ihl)));
    if (s->proto == NF_IPPROTO_TCP || s->proto == NF_IPPROTO_UDP) {
        uint32_t ps = sum16(buf + l3 + 12, 8) + s->proto + l4len;
        uint16_t c = fold(ps + sum16(buf + l4, l4len));
        if (s->proto == NF_IPPROTO_UDP && c == 0)
            c = 0xffff;
        put16(buf + l4 + (s->proto == NF_IPPROTO_TCP ? 16 : 6), c);
    }
    return l4 + l4len;
}

/* An ARP packet (oper 1 = request, 2 = reply). */
static inline uint32_t build_arp(uint8_t *buf, uint16_t oper, const uint8_t sha[6], uint32_t spa, uint32_t tpa)
{
    memset(buf, 0, PKT_MAX);
    memset(buf, 0xff, 6);
    memcpy(buf + 6, sha, 6);
    put16(buf + 12, NF_ETH_P_ARP);
    put16(buf + 14, 1);
    put16(buf + 16, NF_ETH_P_IPV4);
    buf[18] = 6;
    buf[19] = 4;
    put16(buf + 20, oper);
    memcpy(buf + 22, sha, 6);
    put32(buf + 28, spa);
    put32(buf + 38, tpa);
    return 42;
}

/* True when the IPv4 header checksum of a frame verifies. */
static inline int ipv4_csum_ok(const uint8_t *f)
{
    uint32_t l3 = l3_offset(f);
    return fold(sum16(f + l3, (uint32_t)(f[l3] & 15) * 4)) == 0;
}

/* True when the TCP/UDP/ICMP checksum of an unfragmented IPv4 frame verifies. */
static inline int l4_csum_ok(const uint8_t *f)
{
    uint32_t l3 = l3_offset(f), ihl = (uint32_t)(f[l3] & 15) * 4;
    uint32_t l4len = get16(f + l3 + 2) - ihl;
    uint8_t proto = f[l3 + 9];
    if (proto == NF_IPPROTO_ICMP)
        return fold(sum16(f + l3 + ihl, l4len)) == 0;
    if (proto == NF_IPPROTO_UDP && get16(f + l3 + ihl + 6) == 0)
        return 1;
    return fold(sum16(f + l3 + 12, 8) + proto + l4len + sum16(f + l3 + ihl, l4len)) == 0;
}

/* Field accessors for IPv4 frames built above. */
static inline uint32_t f_src_ip(const uint8_t *f) { return get32(f + l3_offset(f) + 12); }
static inline uint32_t f_dst_ip(const uint8_t *f) { return get32(f + l3_offset(f) + 16); }
static inline uint16_t f_sport(const uint8_t *f)
{
    uint32_t l3 = l3_offset(f);
    return get16(f + l3 + (uint32_t)(f[l3] & 15) * 4);
}
static inline uint16_t f_dport(const uint8_t *f)
{
    uint32_t l3 = l3_offset(f);
    return get16(f + l3 + (uint32_t)(f[l3] & 15) * 4 + 2);
}

#endif /* NFC_TEST_PKT_H */
