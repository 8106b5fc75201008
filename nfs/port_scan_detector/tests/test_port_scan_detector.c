/* Behavioural test of port_scan_detector: a source is flagged after
 * `threshold` distinct destination ports, repeated ports do not count,
 * other sources are unaffected, the window resets the verdict, and mark
 * mode sends scanners to port 1. */
#include "pkt.h"

static int32_t probe(void *st, uint32_t src, uint16_t dport, uint64_t now)
{
    uint8_t f[PKT_MAX];
    struct pkt_spec s = spec(NF_IPPROTO_TCP, src, ip4(10, 0, 0, 1), 40000, dport);
    s.tcp_flags = NF_TCP_SYN;
    return run_pkt(st, f, build(f, &s), 0, now);
}

int main(void)
{
    uint32_t scanner = ip4(10, 9, 9, 9), benign = ip4(10, 1, 1, 1);
    uint8_t f[PKT_MAX];
    void *st;

    CHECK_EQ(init_nf(CONFIG(KV("threshold", "5"), KV("window_ms", "1000"), KV("action", "drop"))), 0);
    st = new_state();
    for (uint16_t p = 1; p <= 4; p++)
        CHECK_EQ(probe(st, scanner, p, p * MS), 0);
    for (int i = 0; i < 10; i++) /* the same ports again: still 4 distinct */
        CHECK_EQ(probe(st, scanner, 2, 10 * MS), 0);
    CHECK_EQ(probe(st, scanner, 5, 20 * MS), NF_DROP); /* 5th distinct port */
    CHECK_EQ(probe(st, scanner, 80, 21 * MS), NF_DROP); /* stays flagged */
    CHECK_EQ(probe(st, benign, 80, 22 * MS), 0);
    CHECK_EQ(probe(st, benign, 443, 23 * MS), 0);
    /* UDP counts too; ICMP and ARP are not port traffic */
    {
        struct pkt_spec s = spec(NF_IPPROTO_ICMP, scanner, ip4(10, 0, 0, 1), 0, 0);
        CHECK_EQ(run_pkt(st, f, build(f, &s), 0, 24 * MS), 0);
    }
    /* after the window the scanner starts over */
    CHECK_EQ(probe(st, scanner, 6, 2 * SEC), 0);
    free(st);

    CHECK_EQ(init_nf(CONFIG(KV("threshold", "3"), KV("action", "mark"))), 0);
    st = new_state();
    CHECK_EQ(probe(st, scanner, 1, 1), 0);
    CHECK_EQ(probe(st, scanner, 2, 2), 0);
    CHECK_EQ(probe(st, scanner, 3, 3), 1);
    /* many hosts sharing buckets still resolve to their own nodes */
    for (uint32_t h = 0; h < 9000; h++)
        CHECK_EQ(probe(st, ip4(20, 0, h >> 8, h & 255), 1, 10), 0);
    CHECK_EQ(probe(st, scanner, 4, 11), 1);
    free(st);

    CHECK(init_nf(CONFIG(KV("threshold", "0"))) == -1);
    CHECK(strstr(pkt_last_err, "threshold") != 0);
    CHECK(init_nf(CONFIG(KV("threshold", "65"))) == -1);
    CHECK(init_nf(CONFIG(KV("action", "block"))) == -1 && strstr(pkt_last_err, "action"));
    return test_finish("port_scan_detector");
}
