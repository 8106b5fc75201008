/* Behavioural test of ids: rules are tried in order and the first match
 * decides (pass before drop), payload content matching finds substrings
 * but not across the IP total length, alert counters count per rule, and
 * packets without ports never match port-constrained rules. */
#include "pkt.h"

uint64_t ids_alert_count(uint32_t i);

static int32_t send(struct pkt_spec *s, const char *payload)
{
    uint8_t f[PKT_MAX];
    s->payload = payload;
    s->payload_len = payload ? (uint32_t)strlen(payload) : 0;
    return run_pkt(0, f, build(f, s), 0, 1);
}

int main(void)
{
    struct pkt_spec s;
    uint8_t f[PKT_MAX];

    CHECK_EQ(nf_state_size(), 0);
    CHECK_EQ(init_nf(CONFIG(KV("rules.len", "4"), KV("rules.0.action", "pass"), KV("rules.0.proto", "tcp"),
                            KV("rules.0.src", "10.0.0.0/8"), KV("rules.0.dst_port", "22"),
                            KV("rules.1.action", "drop"), KV("rules.1.proto", "tcp"), KV("rules.1.dst_port", "1:1023"),
                            KV("rules.1.content", "/bin/sh"), KV("rules.2.action", "alert"), KV("rules.2.proto", "tcp"),
                            KV("rules.2.dst_port", "80"), KV("rules.2.content", "GET /admin"),
                            KV("rules.3.action", "alert"), KV("rules.3.proto", "icmp"),
                            KV("rules.3.dst", "192.168.0.0/16"))), 0);

    s = spec(NF_IPPROTO_TCP, ip4(10, 0, 0, 1), ip4(10, 0, 0, 2), 5000, 22);
    CHECK_EQ(send(&s, "cat /bin/sh"), 0); /* rule 0 (pass) precedes rule 1 */
    s.src_ip = ip4(11, 0, 0, 1);
    CHECK_EQ(send(&s, "cat /bin/sh"), NF_DROP); /* now rule 1 */
    CHECK_EQ(send(&s, "cat /bin/bash"), 0);
    s.dport = 2000;
    CHECK_EQ(send(&s, "/bin/sh"), 0); /* port outside 1:1023 */
    s.dport = 80;
    CHECK_EQ(send(&s, "xxGET /admin HTTP/1.0"), 0);
    CHECK_EQ(send(&s, "GET /admin"), 0);
    CHECK_EQ(send(&s, "GET /index"), 0);
    CHECK_EQ(ids_alert_count(2), 2);
    s.vlans = 2;
    CHECK_EQ(send(&s, "GET /admin"), 0); /* decoded through QinQ */
    CHECK_EQ(ids_alert_count(2), 3);
    s.vlans = 0;
    /* content past the IP total length (Ethernet padding) is not payload */
    {
        uint32_t len;
        s.payload = "GET /adm", s.payload_len = 8;
        len = build(f, &s);
        memcpy(f + len, "in", 2);
        CHECK_EQ(run_pkt(0, f, len + 2, 0, 1), 0);
        CHECK_EQ(ids_alert_count(2), 3);
    }
    s = spec(NF_IPPROTO_ICMP, ip4(1, 1, 1, 1), ip4(192, 168, 7, 7), 0, 0);
    CHECK_EQ(send(&s, "ping"), 0);
    CHECK_EQ(ids_alert_count(3), 1);
    /* a non-first fragment has no ports: rule 1 cannot match */
    s = spec(NF_IPPROTO_TCP, ip4(11, 0, 0, 1), ip4(10, 0, 0, 2), 5000, 22);
    s.frag = 0x0040;
    CHECK_EQ(send(&s, "/bin/sh"), 0);
    CHECK_EQ(ids_alert_count(99), 0);

    CHECK(init_nf(CONFIG(KV("rules.len", "1"), KV("rules.0.action", "reject"))) == -1 &&
          strstr(pkt_last_err, "rules.0.action"));
    CHECK(init_nf(CONFIG(KV("rules.len", "1"), KV("rules.0.dst_port", "80:70"))) == -1 &&
          strstr(pkt_last_err, "rules.0.dst_port"));
    CHECK(init_nf(CONFIG(KV("rules.len", "1"), KV("rules.0.content", ""))) == -1 &&
          strstr(pkt_last_err, "rules.0.content"));
    return test_finish("ids");
}
