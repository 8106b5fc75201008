/* Behavioural test of flow_monitor: per-flow records accumulate packets,
 * bytes, first/last timestamps and TCP flags (checked through the
 * canonical state digest), records survive hash collisions in chains, the
 * digest is independent of pointer values, and idle records are recycled
 * when the pool runs out. */
#include "pkt.h"

struct sink {
    uint8_t buf[1 << 22];
    size_t len;
    uint64_t records;
};

static void collect(void *cb, const void *bytes, size_t len)
{
    struct sink *s = cb;
    if (len == 1 && *(const uint8_t *)bytes == 1)
        s->records++;
    if (s->len + len <= sizeof s->buf) {
        memcpy(s->buf + s->len, bytes, len);
        s->len += len;
    }
}

/* Find a record by its key in the digest; fills stats. */
static int find(const struct sink *s, const struct nf_flow5 *k, uint64_t stats[4], uint8_t *flags)
{
    for (size_t i = 16; i + 1 + sizeof *k + 33 <= s->len; i++) {
        if (s->buf[i] == 1 && memcmp(s->buf + i + 1, k, sizeof *k) == 0) {
            memcpy(stats, s->buf + i + 1 + sizeof *k, 32);
            *flags = s->buf[i + 1 + sizeof *k + 32];
            return 1;
        }
    }
    return 0;
}

int main(void)
{
    uint8_t f[PKT_MAX];
    static struct sink d1, d2;
    uint64_t stats[4];
    uint8_t flags = 0;
    uint32_t len;
    struct nf_flow5 key;
    void *a, *b;
    struct pkt_spec s = spec(NF_IPPROTO_TCP, ip4(10, 0, 0, 1), ip4(10, 0, 0, 2), 1234, 80);

    CHECK_EQ(init_nf(CONFIG(KV("idle_timeout_ms", "1000"), KV("ipv4_only", "true"))), 0);
    a = new_state();
    s.tcp_flags = NF_TCP_SYN;
    len = build(f, &s);
    CHECK_EQ(run_pkt(a, f, len, 0, 5 * SEC), 0);
    s.tcp_flags = NF_TCP_ACK | NF_TCP_PSH;
    s.payload = "abc", s.payload_len = 3;
    CHECK_EQ(run_pkt(a, f, build(f, &s), 0, 6 * SEC), 0);
    s.tcp_flags = NF_TCP_FIN | NF_TCP_ACK;
    s.payload_len = 0;
    CHECK_EQ(run_pkt(a, f, build(f, &s), 0, 7 * SEC), 0);
    {
        static const uint8_t mac[6] = {2, 0, 0, 0, 0, 1};
        CHECK_EQ(run_pkt(a, f, build_arp(f, 1, mac, 1, 2), 0, 7 * SEC), NF_DROP); /* ipv4_only */
    }
    for (uint32_t i = 0; i < 10000; i++) { /* more flows than buckets: chains form */
        struct pkt_spec u = spec(NF_IPPROTO_UDP, ip4(20, 0, i >> 8, i & 255), ip4(10, 0, 0, 2), 7, 7);
        CHECK_EQ(run_pkt(a, f, build(f, &u), 0, 7 * SEC), 0);
    }
    nf_state_digest(a, collect, &d1);
    CHECK_EQ(d1.records, 10001);
    memset(&key, 0, sizeof key);
    key.src_ip = ip4(10, 0, 0, 1), key.dst_ip = ip4(10, 0, 0, 2), key.src_port = 1234, key.dst_port = 80;
    key.proto = NF_IPPROTO_TCP;
    CHECK(find(&d1, &key, stats, &flags));
    CHECK_EQ(stats[0], 3);
    CHECK_EQ(stats[1], 3 * len + 3);
    CHECK_EQ(stats[2], 5 * SEC);
    CHECK_EQ(stats[3], 7 * SEC);
    CHECK_EQ(flags, NF_TCP_SYN | NF_TCP_ACK | NF_TCP_PSH | NF_TCP_FIN);

    /* the same packets into another instance give the same digest */
    b = new_state();
    s.tcp_flags = NF_TCP_SYN;
    s.payload_len = 0;
    run_pkt(b, f, build(f, &s), 0, 5 * SEC);
    s.tcp_flags = NF_TCP_ACK | NF_TCP_PSH;
    s.payload_len = 3;
    run_pkt(b, f, build(f, &s), 0, 6 * SEC);
    s.tcp_flags = NF_TCP_FIN | NF_TCP_ACK;
    s.payload_len = 0;
    run_pkt(b, f, build(f, &s), 0, 7 * SEC);
    for (uint32_t i = 0; i < 10000; i++) {
        struct pkt_spec u = spec(NF_IPPROTO_UDP, ip4(20, 0, i >> 8, i & 255), ip4(10, 0, 0, 2), 7, 7);
        run_pkt(b, f, build(f, &u), 0, 7 * SEC);
    }
    nf_state_digest(b, collect, &d2);
    CHECK(d1.len == d2.len && memcmp(d1.buf, d2.buf, d1.len) == 0);

    /* fill the 32768-record pool, then new flows recycle idle records */
    for (uint32_t i = 0; i < 40000; i++) {
        struct pkt_spec u = spec(NF_IPPROTO_UDP, ip4(30, i >> 16, (i >> 8) & 255, i & 255), ip4(10, 0, 0, 2), 9, 9);
        CHECK_EQ(run_pkt(a, f, build(f, &u), 0, 60 * SEC + i), 0);
    }
    memset(&d2, 0, sizeof d2);
    nf_state_digest(a, collect, &d2);
    CHECK(d2.records > 30000 && d2.records <= 32768);
    {
        uint64_t recycled;
        memcpy(&recycled, d2.buf, sizeof recycled); /* the digest starts with the recycle counter */
        CHECK(recycled > 5000);
    }
    free(a);
    free(b);

    CHECK(init_nf(CONFIG(KV("idle_timeout_ms", "soon"))) == -1 && strstr(pkt_last_err, "idle_timeout_ms"));
    CHECK(init_nf(CONFIG(KV("ipv4_only", "1"))) == -1 && strstr(pkt_last_err, "ipv4_only"));
    return test_finish("flow_monitor");
}
