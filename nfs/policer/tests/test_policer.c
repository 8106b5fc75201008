/* Behavioural test of policer: each destination gets `burst` bytes, then
 * packets are dropped until credit refills at `rate`; destinations are
 * policed independently; non-IP traffic is never policed. */
#include "pkt.h"

static int32_t send_to(void *st, uint32_t dst, uint32_t payload, uint64_t now)
{
    static uint8_t data[1500];
    uint8_t f[PKT_MAX];
    struct pkt_spec s = spec(NF_IPPROTO_UDP, ip4(10, 0, 0, 1), dst, 1000, 2000);
    s.payload = data, s.payload_len = payload;
    return run_pkt(st, f, build(f, &s), 0, now);
}

int main(void)
{
    uint32_t a = ip4(10, 0, 0, 2), b = ip4(10, 0, 0, 3);
    int passed = 0;
    void *st;
    uint8_t f[PKT_MAX];
    static const uint8_t mac[6] = {2, 0, 0, 0, 0, 1};

    /* 1000 B/s, burst 1000 B; frames of 458 bytes (14+20+8+416) */
    CHECK_EQ(init_nf(CONFIG(KV("rate", "1000"), KV("burst", "1000"))), 0);
    st = new_state();
    for (int i = 0; i < 5; i++)
        passed += send_to(st, a, 416, SEC) == 0;
    CHECK_EQ(passed, 2); /* 2 * 458 <= 1000 < 3 * 458 */
    CHECK_EQ(send_to(st, b, 416, SEC), 0);      /* another destination has its own bucket */
    CHECK_EQ(send_to(st, a, 416, SEC + 100 * MS), NF_DROP); /* 100 ms refill = 100 B: not enough */
    CHECK_EQ(send_to(st, a, 416, SEC + 500 * MS), 0);       /* 84 + 500 B refilled >= 458 */
    CHECK_EQ(send_to(st, a, 416, 100 * SEC), 0);            /* refill is capped at burst */
    CHECK_EQ(send_to(st, a, 416, 100 * SEC), 0);
    CHECK_EQ(send_to(st, a, 416, 100 * SEC), NF_DROP);
    for (int i = 0; i < 50; i++)
        CHECK_EQ(run_pkt(st, f, build_arp(f, 1, mac, a, b), 0, 100 * SEC), 0);
    free(st);

    CHECK(init_nf(CONFIG(KV("burst", "100"))) == -1 && strstr(pkt_last_err, "rate"));
    CHECK(init_nf(CONFIG(KV("rate", "fast"))) == -1 && strstr(pkt_last_err, "rate"));
    CHECK(init_nf(CONFIG(KV("rate", "1000"), KV("burst", "10"))) == -1 && strstr(pkt_last_err, "burst"));
    return test_finish("policer");
}
