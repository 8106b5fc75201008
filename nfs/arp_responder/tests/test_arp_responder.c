/* Behavioural test of arp_responder: a request for a configured address
 * becomes a well-formed reply on port 1; requests for other addresses,
 * replies and non-ARP frames pass on port 0 untouched; VLAN tags stay. */
#include "pkt.h"

int main(void)
{
    static const uint8_t me[6] = {2, 0, 0, 0, 0, 0xfe}, peer[6] = {2, 0, 0, 0, 0, 0x11};
    uint8_t f[PKT_MAX], orig[PKT_MAX];
    uint32_t len;

    CHECK_EQ(init_nf(CONFIG(KV("mac", "02:00:00:00:00:fe"), KV("ips.len", "2"), KV("ips.0", "10.0.0.1"),
                            KV("ips.1", "10.0.0.254"))), 0);
    len = build_arp(f, 1, peer, ip4(10, 0, 0, 9), ip4(10, 0, 0, 254));
    CHECK_EQ(run_pkt(0, f, len, 0, 1), 1);
    CHECK(memcmp(f, peer, 6) == 0);       /* to the requester */
    CHECK(memcmp(f + 6, me, 6) == 0);     /* from us */
    CHECK_EQ(get16(f + 20), 2);           /* reply */
    CHECK(memcmp(f + 22, me, 6) == 0);    /* sender hw = us */
    CHECK_EQ(get32(f + 28), ip4(10, 0, 0, 254));
    CHECK(memcmp(f + 32, peer, 6) == 0);  /* target hw = requester */
    CHECK_EQ(get32(f + 38), ip4(10, 0, 0, 9));

    len = build_arp(f, 1, peer, ip4(10, 0, 0, 9), ip4(10, 0, 0, 2)); /* not ours */
    memcpy(orig, f, len);
    CHECK_EQ(run_pkt(0, f, len, 0, 1), 0);
    CHECK(memcmp(f, orig, len) == 0);
    len = build_arp(f, 2, peer, ip4(10, 0, 0, 9), ip4(10, 0, 0, 1)); /* a reply: ignored */
    CHECK_EQ(run_pkt(0, f, len, 0, 1), 0);
    CHECK_EQ(run_pkt(0, f, 41, 0, 1), 0); /* truncated request */
    {
        struct pkt_spec s = spec(NF_IPPROTO_UDP, 1, ip4(10, 0, 0, 1), 1, 2);
        CHECK_EQ(run_pkt(0, f, build(f, &s), 0, 1), 0);
    }
    /* an 802.1Q-tagged request keeps its tag */
    len = build_arp(orig, 1, peer, ip4(10, 0, 0, 9), ip4(10, 0, 0, 1));
    memcpy(f, orig, 12);
    put16(f + 12, NF_ETH_P_VLAN);
    put16(f + 14, 42);
    memcpy(f + 16, orig + 12, len - 12);
    CHECK_EQ(run_pkt(0, f, len + 4, 0, 1), 1);
    CHECK_EQ(get16(f + 12), NF_ETH_P_VLAN);
    CHECK_EQ(get16(f + 14), 42);
    CHECK_EQ(get16(f + 24), 2);

    CHECK(init_nf(CONFIG(KV("ips.len", "1"), KV("ips.0", "10.0.0.1"))) == -1 && strstr(pkt_last_err, "mac"));
    CHECK(init_nf(CONFIG(KV("mac", "02:00:00:00:00:fe"), KV("ips.len", "1"), KV("ips.0", "10.0.0"))) == -1 &&
          strstr(pkt_last_err, "ips.0"));
    CHECK(init_nf(CONFIG(KV("mac", "02:00:00:00:00:fe"))) == -1 && strstr(pkt_last_err, "ips"));
    return test_finish("arp_responder");
}
