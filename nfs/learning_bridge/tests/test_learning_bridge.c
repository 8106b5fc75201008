/* Behavioural test of learning_bridge: unknown and broadcast destinations
 * flood, a learned MAC is forwarded to its port, a MAC that moves is
 * re-learned, same-port traffic is filtered, and entries age out. */
#include "pkt.h"

static int32_t frame(void *st, uint8_t src_last, uint8_t dst_last, uint32_t in_port, uint64_t now)
{
    uint8_t f[PKT_MAX];
    struct pkt_spec s = spec(NF_IPPROTO_UDP, 1, 2, 3, 4);
    s.src_mac[5] = src_last;
    s.dst_mac[5] = dst_last;
    if (dst_last == 0xff)
        memset(s.dst_mac, 0xff, 6);
    return run_pkt(st, f, build(f, &s), in_port, now);
}

int main(void)
{
    void *st;
    const int32_t FLOOD = 4;

    CHECK_EQ(init_nf(CONFIG(KV("ports", "4"), KV("ageing_ms", "10000"))), 0);
    CHECK_EQ(nf_describe()->n_ports, 5);
    st = new_state();
    CHECK_EQ(frame(st, 0xa, 0xb, 0, 1 * SEC), FLOOD);  /* b unknown */
    CHECK_EQ(frame(st, 0xb, 0xa, 2, 2 * SEC), 2 - 2);  /* a learned on port 0 */
    CHECK_EQ(frame(st, 0xa, 0xb, 0, 3 * SEC), 2);      /* b learned on port 2 */
    CHECK_EQ(frame(st, 0xa, 0xff, 0, 3 * SEC), FLOOD); /* broadcast */
    CHECK_EQ(frame(st, 0xc, 0xa, 0, 3 * SEC), NF_DROP); /* a lives on the input port */
    CHECK_EQ(frame(st, 0xa, 0xc, 3, 4 * SEC), 0);      /* a moved to port 3, c on 0 */
    CHECK_EQ(frame(st, 0xb, 0xa, 2, 4 * SEC), 3);
    /* a and c keep talking, so they never age out; b is silent and does */
    for (uint64_t t = 5; t <= 20; t++) {
        CHECK_EQ(frame(st, 0xa, 0xc, 3, t * SEC), 0);
        CHECK_EQ(frame(st, 0xc, 0xa, 0, t * SEC), 3);
    }
    CHECK_EQ(frame(st, 0xc, 0xa, 0, 21 * SEC), 3);
    CHECK_EQ(frame(st, 0xa, 0xb, 3, 21 * SEC), FLOOD); /* b aged out */
    CHECK_EQ(frame(st, 0xa, 0xb, 4, 21 * SEC), NF_DROP); /* no such input port */
    free(st);

    CHECK(init_nf(CONFIG(KV("ports", "1"))) == -1 && strstr(pkt_last_err, "ports"));
    CHECK(init_nf(CONFIG(KV("ageing_ms", "0"))) == -1 && strstr(pkt_last_err, "ageing_ms"));
    return test_finish("learning_bridge");
}
