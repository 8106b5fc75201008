/* Behavioural test of heavy_hitter: a source sending more than the
 * threshold within a window is flagged (dropped or marked) while light
 * sources pass, and the next window starts from zero. */
#include "pkt.h"

static int32_t from(void *st, uint32_t src, uint64_t now)
{
    uint8_t f[PKT_MAX];
    struct pkt_spec s = spec(NF_IPPROTO_UDP, src, ip4(10, 0, 0, 1), 1, 2);
    return run_pkt(st, f, build(f, &s), 0, now);
}

int main(void)
{
    uint32_t heavy = ip4(198, 18, 0, 1);
    int dropped = 0;
    void *st;

    CHECK_EQ(init_nf(CONFIG(KV("threshold", "100"), KV("width", "1024"), KV("window_ms", "1000"),
                            KV("count", "packets"), KV("action", "drop"))), 0);
    st = new_state();
    for (int i = 0; i < 150; i++)
        dropped += from(st, heavy, SEC + (uint64_t)i) == NF_DROP;
    CHECK_EQ(dropped, 50); /* packets 101..150 */
    for (uint32_t i = 0; i < 500; i++)
        CHECK_EQ(from(st, ip4(10, 1, i >> 8, i & 255), SEC + 200), 0);
    CHECK_EQ(from(st, heavy, 3 * SEC), 0); /* new window */
    free(st);

    CHECK_EQ(init_nf(CONFIG(KV("threshold", "1000"), KV("count", "bytes"), KV("action", "mark"))), 0);
    st = new_state();
    for (int i = 0; i < 23; i++) /* 23 * 42-byte frames = 966 bytes */
        CHECK_EQ(from(st, heavy, SEC), 0);
    CHECK_EQ(from(st, heavy, SEC), 1); /* 1008 > 1000 */
    free(st);

    CHECK(init_nf(CONFIG(KV("width", "1024"))) == -1 && strstr(pkt_last_err, "threshold"));
    CHECK(init_nf(CONFIG(KV("threshold", "5"), KV("width", "1000"))) == -1 && strstr(pkt_last_err, "width"));
    CHECK(init_nf(CONFIG(KV("threshold", "5"), KV("count", "flows"))) == -1 && strstr(pkt_last_err, "count"));
    return test_finish("heavy_hitter");
}
