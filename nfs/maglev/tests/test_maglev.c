/* Behavioural test of maglev: the lookup table is a permutation-populated
 * Maglev table (every backend gets close to M/N slots), a flow keeps its
 * backend for every packet, many flows spread over all backends, the
 * destination IP/MAC are rewritten with valid checksums, and bad configs
 * are rejected naming the key. */
#include "pkt.h"

static const uint8_t mac_of[3][6] = {{2, 0, 0, 0, 1, 1}, {2, 0, 0, 0, 1, 2}, {2, 0, 0, 0, 1, 3}};

static int backend_of(const uint8_t *f)
{
    for (int i = 0; i < 3; i++)
        if (memcmp(f, mac_of[i], 6) == 0 && f_dst_ip(f) == ip4(10, 0, 1, (unsigned)i + 1))
            return i;
    return -1;
}

int main(void)
{
    uint8_t f[PKT_MAX];
    int counts[3] = {0, 0, 0}, first;
    void *st;

    CHECK_EQ(init_nf(CONFIG(KV("table_size", "251"), KV("backends.len", "3"), KV("backends.0.ip", "10.0.1.1"),
                            KV("backends.0.mac", "02:00:00:00:01:01"), KV("backends.1.ip", "10.0.1.2"),
                            KV("backends.1.mac", "02:00:00:00:01:02"), KV("backends.2.ip", "10.0.1.3"),
                            KV("backends.2.mac", "02:00:00:00:01:03"))), 0);
    st = new_state();

    /* one flow, many packets: always the same backend, valid checksums */
    {
        struct pkt_spec s = spec(NF_IPPROTO_TCP, ip4(198, 51, 100, 7), ip4(203, 0, 113, 80), 33000, 80);
        s.payload = "GET / HTTP/1.1\r\n", s.payload_len = 16;
        CHECK_EQ(run_pkt(st, f, build(f, &s), 0, 1), 0);
        first = backend_of(f);
        CHECK(first >= 0);
        CHECK(ipv4_csum_ok(f));
        CHECK(l4_csum_ok(f));
        for (int i = 0; i < 20; i++) {
            CHECK_EQ(run_pkt(st, f, build(f, &s), 0, 2 + (uint64_t)i), 0);
            CHECK_EQ(backend_of(f), first);
        }
    }
    /* 3000 flows spread over every backend, none starved */
    for (uint32_t i = 0; i < 3000; i++) {
        struct pkt_spec s = spec(NF_IPPROTO_UDP, ip4(100, 64, i >> 8, i & 255), ip4(203, 0, 113, 80),
                                 (uint16_t)(10000 + i), 53);
        int b;
        CHECK_EQ(run_pkt(st, f, build(f, &s), 0, 100), 0);
        b = backend_of(f);
        CHECK(b >= 0);
        CHECK(l4_csum_ok(f));
        if (b >= 0)
            counts[b]++;
    }
    for (int b = 0; b < 3; b++)
        CHECK(counts[b] > 700 && counts[b] < 1300);
    /* non-IPv4 passes untouched */
    {
        static const uint8_t mac[6] = {2, 0, 0, 0, 0, 5};
        uint32_t len = build_arp(f, 1, mac, 1, 2);
        CHECK_EQ(run_pkt(st, f, len, 0, 1), 0);
        CHECK(f[0] == 0xff);
    }
    free(st);

    CHECK(init_nf(CONFIG(KV("table_size", "251"))) == -1 && strstr(pkt_last_err, "backends"));
    CHECK(init_nf(CONFIG(KV("table_size", "250"), KV("backends.len", "1"), KV("backends.0.ip", "1.1.1.1"),
                         KV("backends.0.mac", "02:00:00:00:00:01"))) == -1 &&
          strstr(pkt_last_err, "table_size"));
    CHECK(init_nf(CONFIG(KV("backends.len", "1"), KV("backends.0.ip", "1.1.1"), KV("backends.0.mac", "02:00:00:00:00:01"))) ==
              -1 &&
          strstr(pkt_last_err, "backends.0.ip"));
    CHECK(init_nf(CONFIG(KV("backends.len", "1"), KV("backends.0.ip", "1.1.1.1"), KV("backends.0.mac", "02:00"))) == -1 &&
          strstr(pkt_last_err, "backends.0.mac"));
    return test_finish("maglev");
}
