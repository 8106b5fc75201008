/* Behavioural test of icmp_echo: an echo request to a configured address
 * becomes an echo reply on port 1 with swapped addresses, the configured
 * TTL and valid IP and ICMP checksums (also with IP options and Ethernet
 * padding); other traffic and fragmented requests pass on port 0. */
#include "pkt.h"

int main(void)
{
    uint8_t f[PKT_MAX];
    uint32_t me = ip4(10, 0, 0, 1), peer = ip4(10, 0, 0, 7), len, l3;
    struct pkt_spec s = spec(NF_IPPROTO_ICMP, peer, me, 0, 0);

    CHECK_EQ(init_nf(CONFIG(KV("ips.len", "1"), KV("ips.0", "10.0.0.1"), KV("ttl", "99"))), 0);
    s.payload = "0123456789abcdefXYZ", s.payload_len = 19, s.icmp_id = 0x4242, s.icmp_seq = 3;
    len = build(f, &s);
    CHECK_EQ(run_pkt(0, f, len, 0, 1), 1);
    l3 = l3_offset(f);
    CHECK_EQ(f_src_ip(f), me);
    CHECK_EQ(f_dst_ip(f), peer);
    CHECK_EQ(f[l3 + 8], 99);
    CHECK_EQ(f[l3 + 20], 0); /* echo reply */
    CHECK_EQ(get16(f + l3 + 24), 0x4242);
    CHECK_EQ(f[0], 0x02);
    CHECK_EQ(f[5], 0xaa); /* back to the sender's MAC */
    CHECK(ipv4_csum_ok(f));
    CHECK(l4_csum_ok(f));

    s.ip_opts_len = 8; /* options and padding: checksum still covers only the message */
    len = build(f, &s);
    memset(f + len, 0x5a, 20);
    CHECK_EQ(run_pkt(0, f, len + 20, 0, 1), 1);
    CHECK(ipv4_csum_ok(f));
    CHECK(l4_csum_ok(f));
    s.ip_opts_len = 0;

    s.dst_ip = ip4(10, 0, 0, 2); /* not ours */
    CHECK_EQ(run_pkt(0, f, build(f, &s), 0, 1), 0);
    s.dst_ip = me;
    s.icmp_type = 0; /* a reply is not answered */
    CHECK_EQ(run_pkt(0, f, build(f, &s), 0, 1), 0);
    s.icmp_type = 8;
    s.frag = 0x2000; /* more fragments: not answered */
    CHECK_EQ(run_pkt(0, f, build(f, &s), 0, 1), 0);
    s.frag = 0;
    len = build(f, &s);
    CHECK_EQ(run_pkt(0, f, len - 5, 0, 1), 0); /* truncated below tot_len */

    CHECK(init_nf(CONFIG(KV("ips.len", "0"))) == -1 && strstr(pkt_last_err, "ips"));
    CHECK(init_nf(CONFIG(KV("ips.len", "1"), KV("ips.0", "ten"))) == -1 && strstr(pkt_last_err, "ips.0"));
    CHECK(init_nf(CONFIG(KV("ips.len", "1"), KV("ips.0", "10.0.0.1"), KV("ttl", "256"))) == -1 &&
          strstr(pkt_last_err, "ttl"));
    return test_finish("icmp_echo");
}
