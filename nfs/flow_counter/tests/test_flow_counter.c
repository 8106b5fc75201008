/* Behavioural test of flow_counter: packets of one 5-tuple share a
 * counter, a different port or direction is another flow, and the
 * configured per-flow budget drops packets beyond it. */
#include "pkt.h"

int main(void)
{
    uint8_t f[PKT_MAX];
    struct pkt_spec fwd = spec(NF_IPPROTO_TCP, ip4(10, 0, 0, 1), ip4(10, 0, 0, 2), 1000, 80);
    struct pkt_spec rev = spec(NF_IPPROTO_TCP, ip4(10, 0, 0, 2), ip4(10, 0, 0, 1), 80, 1000);
    struct pkt_spec other = spec(NF_IPPROTO_TCP, ip4(10, 0, 0, 1), ip4(10, 0, 0, 2), 1001, 80);
    void *st;

    CHECK_EQ(init_nf(CONFIG(KV("max_packets", "3"))), 0);
    st = new_state();
    for (int i = 0; i < 3; i++)
        CHECK_EQ(run_pkt(st, f, build(f, &fwd), 0, 1), 0);
    CHECK_EQ(run_pkt(st, f, build(f, &fwd), 0, 1), NF_DROP); /* 4th packet of the flow */
    CHECK_EQ(run_pkt(st, f, build(f, &rev), 0, 1), 0);       /* reverse direction: own counter */
    CHECK_EQ(run_pkt(st, f, build(f, &other), 0, 1), 0);
    for (int i = 0; i < 2; i++)
        CHECK_EQ(run_pkt(st, f, build(f, &other), 0, 1), 0);
    CHECK_EQ(run_pkt(st, f, build(f, &other), 0, 1), NF_DROP);
    fwd.ipv6 = 1; /* not IPv4: uncounted, forwarded */
    for (int i = 0; i < 5; i++)
        CHECK_EQ(run_pkt(st, f, build(f, &fwd), 0, 1), 0);
    free(st);

    CHECK_EQ(init_nf(CONFIG(KV("max_packets", "0"))), 0);
    st = new_state();
    fwd.ipv6 = 0;
    for (int i = 0; i < 100; i++)
        CHECK_EQ(run_pkt(st, f, build(f, &fwd), 0, 1), 0);
    free(st);
    CHECK(init_nf(CONFIG(KV("max_packets", "-1"))) == -1 && strstr(pkt_last_err, "max_packets"));
    return test_finish("flow_counter");
}
