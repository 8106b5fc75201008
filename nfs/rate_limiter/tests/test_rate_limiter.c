/* Behavioural test of rate_limiter: a flow may send `burst` packets at
 * once, then `pps` per second; flows are limited independently; a flow
 * evicted from a full set starts over with a full bucket. */
#include "pkt.h"

static int32_t send_flow(void *st, uint16_t sport, uint64_t now)
{
    uint8_t f[PKT_MAX];
    struct pkt_spec s = spec(NF_IPPROTO_UDP, ip4(10, 0, 0, 1), ip4(10, 0, 0, 2), sport, 53);
    return run_pkt(st, f, build(f, &s), 0, now);
}

int main(void)
{
    void *st;
    int passed = 0;

    CHECK_EQ(init_nf(CONFIG(KV("pps", "10"), KV("burst", "3"))), 0);
    st = new_state();
    for (int i = 0; i < 10; i++)
        passed += send_flow(st, 1000, SEC) == 0;
    CHECK_EQ(passed, 3);
    CHECK_EQ(send_flow(st, 1001, SEC), 0);               /* independent flow */
    CHECK_EQ(send_flow(st, 1000, SEC + 50 * MS), NF_DROP); /* half a token */
    CHECK_EQ(send_flow(st, 1000, SEC + 100 * MS), 0);      /* one token after 100 ms */
    CHECK_EQ(send_flow(st, 1000, SEC + 100 * MS), NF_DROP);
    passed = 0;
    for (int i = 0; i < 10; i++) /* a long pause refills only up to burst */
        passed += send_flow(st, 1000, 60 * SEC) == 0;
    CHECK_EQ(passed, 3);
    /* 20000 other flows overflow the 4-way sets; the flow then starts fresh */
    for (uint32_t i = 0; i < 20000; i++)
        send_flow(st, (uint16_t)(2000 + i), 61 * SEC + i);
    CHECK_EQ(send_flow(st, 1000, 62 * SEC), 0);
    free(st);

    CHECK(init_nf(CONFIG(KV("burst", "3"))) == -1 && strstr(pkt_last_err, "pps"));
    CHECK(init_nf(CONFIG(KV("pps", "10"), KV("burst", "0"))) == -1 && strstr(pkt_last_err, "burst"));
    return test_finish("rate_limiter");
}
