/* Behavioural test of nat: outbound packets get the external address and
 * an allocated port, replies are translated back to the inside host, both
 * with valid checksums; unsolicited inbound traffic, wrong remotes and
 * expired bindings are dropped; a small pool is exhausted and reclaimed. */
#include "pkt.h"

int main(void)
{
    uint32_t inside = ip4(192, 168, 1, 10), remote = ip4(93, 184, 216, 34), ext = ip4(203, 0, 113, 1);
    uint8_t f[PKT_MAX];
    struct pkt_spec out = spec(NF_IPPROTO_TCP, inside, remote, 5555, 443);
    uint16_t ext_port, ext_port_udp;
    uint32_t len;
    void *st;

    CHECK_EQ(init_nf(CONFIG(KV("external_ip", "203.0.113.1"), KV("port_min", "40000"), KV("port_max", "40003"),
                            KV("timeout_ms", "1000"))), 0);
    st = new_state();

    /* inside -> outside */
    out.payload = "hello", out.payload_len = 5;
    len = build(f, &out);
    CHECK_EQ(run_pkt(st, f, len, 0, 1 * SEC), 0);
    CHECK_EQ(f_src_ip(f), ext);
    CHECK_EQ(f_dst_ip(f), remote);
    ext_port = f_sport(f);
    CHECK(ext_port >= 40000 && ext_port <= 40003);
    CHECK(ipv4_csum_ok(f));
    CHECK(l4_csum_ok(f));
    /* the same flow keeps its port */
    len = build(f, &out);
    CHECK_EQ(run_pkt(st, f, len, 0, 1 * SEC + 1), 0);
    CHECK_EQ(f_sport(f), ext_port);

    /* outside -> inside: the reply meets the same binding */
    {
        struct pkt_spec in = spec(NF_IPPROTO_TCP, remote, ext, 443, ext_port);
        in.payload = "world!", in.payload_len = 6;
        len = build(f, &in);
        CHECK_EQ(run_pkt(st, f, len, 1, 1 * SEC + 2), 1);
        CHECK_EQ(f_dst_ip(f), inside);
        CHECK_EQ(f_dport(f), 5555);
        CHECK_EQ(f_src_ip(f), remote);
        CHECK(ipv4_csum_ok(f));
        CHECK(l4_csum_ok(f));
        /* a different remote may not use the binding */
        in.src_ip = ip4(6, 6, 6, 6);
        CHECK_EQ(run_pkt(st, f, build(f, &in), 1, 1 * SEC + 3), NF_DROP);
        /* nor a different protocol */
        in = spec(NF_IPPROTO_UDP, remote, ext, 443, ext_port);
        CHECK_EQ(run_pkt(st, f, build(f, &in), 1, 1 * SEC + 3), NF_DROP);
        /* unsolicited port */
        in = spec(NF_IPPROTO_TCP, remote, ext, 443, 40003);
        CHECK_EQ(run_pkt(st, f, build(f, &in), 1, 1 * SEC + 3), NF_DROP);
    }

    /* UDP gets its own binding; checksums stay valid */
    {
        struct pkt_spec u = spec(NF_IPPROTO_UDP, inside, remote, 5353, 53);
        u.payload = "q", u.payload_len = 1;
        CHECK_EQ(run_pkt(st, f, build(f, &u), 0, 1 * SEC + 4), 0);
        ext_port_udp = f_sport(f);
        CHECK(ext_port_udp != ext_port);
        CHECK(l4_csum_ok(f));
        u = spec(NF_IPPROTO_UDP, remote, ext, 53, ext_port_udp);
        CHECK_EQ(run_pkt(st, f, build(f, &u), 1, 1 * SEC + 5), 1);
        CHECK_EQ(f_dport(f), 5353);
        CHECK(l4_csum_ok(f));
    }

    /* exhaust the 4-port pool, then let bindings expire and reuse them */
    for (uint16_t p = 1; p <= 2; p++) {
        struct pkt_spec o = spec(NF_IPPROTO_TCP, inside, remote, (uint16_t)(6000 + p), 443);
        CHECK_EQ(run_pkt(st, f, build(f, &o), 0, 1 * SEC + 10), 0);
    }
    {
        struct pkt_spec o = spec(NF_IPPROTO_TCP, inside, remote, 7000, 443);
        CHECK_EQ(run_pkt(st, f, build(f, &o), 0, 1 * SEC + 11), NF_DROP); /* pool exhausted */
        CHECK_EQ(run_pkt(st, f, build(f, &o), 0, 5 * SEC), 0);          /* bindings expired */
        CHECK_EQ(f_sport(f), ext_port);                                   /* the first one is reused */
        struct pkt_spec in = spec(NF_IPPROTO_TCP, remote, ext, 443, ext_port);
        CHECK_EQ(run_pkt(st, f, build(f, &in), 1, 5 * SEC + 1), 1);      /* now reaches the new flow */
        CHECK_EQ(f_dport(f), 7000);
        in = spec(NF_IPPROTO_UDP, remote, ext, 53, ext_port_udp);
        CHECK_EQ(run_pkt(st, f, build(f, &in), 1, 5 * SEC + 2), NF_DROP); /* expired binding */
    }
    /* ARP passes in both directions; ICMP and fragments are not translated */
    {
        static const uint8_t mac[6] = {2, 0, 0, 0, 0, 9};
        struct pkt_spec i = spec(NF_IPPROTO_ICMP, inside, remote, 0, 0);
        CHECK_EQ(run_pkt(st, f, build_arp(f, 1, mac, inside, remote), 0, 6 * SEC), 0);
        CHECK_EQ(run_pkt(st, f, build_arp(f, 1, mac, remote, ext), 1, 6 * SEC), 1);
        CHECK_EQ(run_pkt(st, f, build(f, &i), 0, 6 * SEC), NF_DROP);
        out.frag = 0x0010;
        CHECK_EQ(run_pkt(st, f, build(f, &out), 0, 6 * SEC), NF_DROP);
        CHECK_EQ(run_pkt(st, f, build(f, &out), 2, 6 * SEC), NF_DROP); /* no port 2 */
    }
    free(st);

    CHECK(init_nf(CONFIG(KV("port_min", "1"))) == -1 && strstr(pkt_last_err, "external_ip"));
    CHECK(init_nf(CONFIG(KV("external_ip", "203.0.113.300"))) == -1 && strstr(pkt_last_err, "external_ip"));
    CHECK(init_nf(CONFIG(KV("external_ip", "1.2.3.4"), KV("port_min", "2000"), KV("port_max", "1000"))) == -1 &&
          strstr(pkt_last_err, "port_max"));
    return test_finish("nat");
}
