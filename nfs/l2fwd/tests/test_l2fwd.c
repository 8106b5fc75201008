/* Behavioural test of l2fwd: destination (and optional source) MACs are
 * rewritten, the payload is untouched, the configured port is used, and
 * runt frames are dropped. */
#include "pkt.h"

int main(void)
{
    uint8_t f[PKT_MAX], orig[PKT_MAX];
    static const uint8_t dst[6] = {0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff}, src[6] = {2, 0, 0, 0, 0, 1};
    struct pkt_spec s = spec(NF_IPPROTO_UDP, ip4(1, 2, 3, 4), ip4(5, 6, 7, 8), 1, 2);
    uint32_t len;

    CHECK_EQ(init_nf(CONFIG(KV("dst_mac", "aa:bb:cc:dd:ee:ff"), KV("src_mac", "02:00:00:00:00:01"), KV("port", "3"))), 0);
    CHECK_EQ(nf_describe()->n_ports, 4);
    len = build(f, &s);
    memcpy(orig, f, len);
    CHECK_EQ(run_pkt(0, f, len, 0, 1), 3);
    CHECK(memcmp(f, dst, 6) == 0);
    CHECK(memcmp(f + 6, src, 6) == 0);
    CHECK(memcmp(f + 12, orig + 12, len - 12) == 0);
    CHECK_EQ(run_pkt(0, f, 14, 0, 1), 3);
    CHECK_EQ(run_pkt(0, f, 13, 0, 1), NF_DROP);

    CHECK_EQ(init_nf(CONFIG(KV("dst_mac", "AA:BB:CC:DD:EE:FF"))), 0);
    len = build(f, &s);
    CHECK_EQ(run_pkt(0, f, len, 0, 1), 0);
    CHECK(memcmp(f, dst, 6) == 0);
    CHECK(memcmp(f + 6, orig + 6, 6) == 0); /* source kept */

    CHECK(init_nf(CONFIG(KV("src_mac", "02:00:00:00:00:01"))) == -1 && strstr(pkt_last_err, "dst_mac"));
    CHECK(init_nf(CONFIG(KV("dst_mac", "aa:bb:cc:dd:ee"))) == -1 && strstr(pkt_last_err, "dst_mac"));
    CHECK(init_nf(CONFIG(KV("dst_mac", "aa:bb:cc:dd:ee:ff"), KV("port", "16"))) == -1 && strstr(pkt_last_err, "port"));
    return test_finish("l2fwd");
}
