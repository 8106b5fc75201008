/* Behavioural test of conn_limiter: a source may hold max_conns open
 * connections, the next SYN is dropped, a FIN or RST from either side
 * frees a slot, data of open connections flows both ways, other sources
 * are independent, and drop_unknown decides about untracked segments. */
#include "pkt.h"

static int32_t seg(void *st, uint32_t src, uint32_t dst, uint16_t sport, uint16_t dport, uint8_t flags)
{
    uint8_t f[PKT_MAX];
    struct pkt_spec s = spec(NF_IPPROTO_TCP, src, dst, sport, dport);
    s.tcp_flags = flags;
    return run_pkt(st, f, build(f, &s), 0, 1);
}

int main(void)
{
    uint32_t client = ip4(10, 0, 0, 5), other = ip4(10, 0, 0, 6), server = ip4(10, 0, 0, 1);
    void *st;

    CHECK_EQ(init_nf(CONFIG(KV("max_conns", "2"), KV("drop_unknown", "true"))), 0);
    st = new_state();
    CHECK_EQ(seg(st, client, server, 1001, 80, NF_TCP_SYN), 0);
    CHECK_EQ(seg(st, server, client, 80, 1001, NF_TCP_SYN | NF_TCP_ACK), 0); /* reply of an open conn */
    CHECK_EQ(seg(st, client, server, 1002, 80, NF_TCP_SYN), 0);
    CHECK_EQ(seg(st, client, server, 1003, 80, NF_TCP_SYN), NF_DROP);       /* limit reached */
    CHECK_EQ(seg(st, other, server, 1003, 80, NF_TCP_SYN), 0);              /* another source */
    CHECK_EQ(seg(st, client, server, 1001, 80, NF_TCP_ACK | NF_TCP_PSH), 0);
    CHECK_EQ(seg(st, server, client, 80, 1001, NF_TCP_FIN | NF_TCP_ACK), 0); /* server closes */
    CHECK_EQ(seg(st, client, server, 1003, 80, NF_TCP_SYN), 0);             /* a slot is free */
    CHECK_EQ(seg(st, client, server, 1004, 80, NF_TCP_SYN), NF_DROP);
    CHECK_EQ(seg(st, client, server, 1002, 80, NF_TCP_RST), 0);             /* client resets */
    CHECK_EQ(seg(st, client, server, 1004, 80, NF_TCP_SYN), 0);
    CHECK_EQ(seg(st, client, server, 1001, 80, NF_TCP_ACK), NF_DROP);       /* closed: unknown */
    {
        uint8_t f[PKT_MAX];
        struct pkt_spec u = spec(NF_IPPROTO_UDP, client, server, 1, 2);
        CHECK_EQ(run_pkt(st, f, build(f, &u), 0, 1), 0); /* not TCP */
    }
    free(st);

    CHECK_EQ(init_nf(CONFIG(KV("max_conns", "1"))), 0);
    st = new_state();
    CHECK_EQ(seg(st, client, server, 1, 80, NF_TCP_ACK), 0); /* unknown passes by default */
    CHECK_EQ(seg(st, client, server, 2, 80, NF_TCP_SYN), 0);
    CHECK_EQ(seg(st, client, server, 3, 80, NF_TCP_SYN), NF_DROP);
    free(st);

    CHECK(init_nf(CONFIG(KV("drop_unknown", "true"))) == -1 && strstr(pkt_last_err, "max_conns"));
    CHECK(init_nf(CONFIG(KV("max_conns", "0"))) == -1 && strstr(pkt_last_err, "max_conns"));
    CHECK(init_nf(CONFIG(KV("max_conns", "3"), KV("drop_unknown", "no"))) == -1 && strstr(pkt_last_err, "drop_unknown"));
    return test_finish("conn_limiter");
}
