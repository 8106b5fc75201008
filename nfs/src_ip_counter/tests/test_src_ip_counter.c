/* Behavioural test of src_ip_counter: per-source packet and byte counts
 * land in the state table, VLAN-tagged traffic is counted or skipped as
 * configured, and non-IPv4 frames are forwarded uncounted. */
#include "pkt.h"

/* The state layout the NF defines (kept in sync by the facts test's size check). */
struct src_counter_view {
    uint32_t addr, in_use;
    uint64_t packets, bytes;
};

static void totals(void *st, uint32_t addr, uint64_t *pkts, uint64_t *bytes)
{
    const struct src_counter_view *slots = st;
    *pkts = *bytes = 0;
    for (uint32_t i = 0; i < 16384; i++)
        if (slots[i].in_use && slots[i].addr == addr) {
            *pkts += slots[i].packets;
            *bytes += slots[i].bytes;
        }
}

int main(void)
{
    uint8_t f[PKT_MAX];
    uint64_t p, b;
    uint32_t len;
    void *st;
    struct pkt_spec s;

    CHECK_EQ(init_nf(CONFIG(KV("count_vlan_tagged", "true"))), 0);
    st = new_state();
    s = spec(NF_IPPROTO_TCP, ip4(10, 0, 0, 1), ip4(10, 0, 0, 2), 1, 2);
    len = build(f, &s);
    for (int i = 0; i < 3; i++)
        CHECK_EQ(run_pkt(st, f, len, 0, 1), 0);
    s.vlans = 1;
    CHECK_EQ(run_pkt(st, f, build(f, &s), 0, 1), 0);
    s = spec(NF_IPPROTO_UDP, ip4(10, 0, 0, 9), ip4(10, 0, 0, 2), 1, 2);
    CHECK_EQ(run_pkt(st, f, build(f, &s), 0, 1), 0);
    totals(st, ip4(10, 0, 0, 1), &p, &b);
    CHECK_EQ(p, 4);
    CHECK_EQ(b, 3 * len + len + 4);
    totals(st, ip4(10, 0, 0, 9), &p, &b);
    CHECK_EQ(p, 1);
    s.ipv6 = 1; /* not counted, still forwarded */
    CHECK_EQ(run_pkt(st, f, build(f, &s), 0, 1), 0);
    totals(st, ip4(10, 0, 0, 9), &p, &b);
    CHECK_EQ(p, 1);
    CHECK_EQ(run_pkt(st, f, 10, 0, 1), NF_DROP); /* runt */
    free(st);

    CHECK_EQ(init_nf(CONFIG(KV("count_vlan_tagged", "false"))), 0);
    st = new_state();
    s = spec(NF_IPPROTO_TCP, ip4(10, 0, 0, 1), ip4(10, 0, 0, 2), 1, 2);
    s.vlans = 2;
    CHECK_EQ(run_pkt(st, f, build(f, &s), 0, 1), 0);
    totals(st, ip4(10, 0, 0, 1), &p, &b);
    CHECK_EQ(p, 0);
    free(st);

    CHECK(init_nf(CONFIG(KV("count_vlan_tagged", "yes"))) == -1 && strstr(pkt_last_err, "count_vlan_tagged"));
    return test_finish("src_ip_counter");
}
