/* Behavioural test of firewall: the first matching rule wins (a specific
 * drop before a broader allow), prefixes, port ranges, protocols and the
 * default action apply as written, fragments only match port wildcards,
 * and a 1,000-rule ACL evaluates to its last rule. */
#include "pkt.h"
#include <stdio.h>

static int32_t tcp_to(uint32_t src, uint32_t dst, uint16_t dport)
{
    uint8_t f[PKT_MAX];
    struct pkt_spec s = spec(NF_IPPROTO_TCP, src, dst, 40000, dport);
    return run_pkt(0, f, build(f, &s), 0, 1);
}

int main(void)
{
    uint8_t f[PKT_MAX];
    uint32_t in10 = ip4(10, 1, 2, 3), out = ip4(8, 8, 8, 8);
    struct pkt_spec s;

    CHECK_EQ(nf_state_size(), 0);
    CHECK_EQ(init_nf(CONFIG(KV("default_action", "drop"), KV("non_ip", "drop"), KV("rules.len", "4"),
                            KV("rules.0.src", "10.0.0.0/8"), KV("rules.0.proto", "tcp"), KV("rules.0.dst_port", "22"),
                            KV("rules.0.action", "drop"), KV("rules.1.src", "10.0.0.0/8"), KV("rules.1.proto", "tcp"),
                            KV("rules.1.dst_port", "1-1023"), KV("rules.1.action", "allow"), KV("rules.2.proto", "udp"),
                            KV("rules.2.dst", "192.168.0.0/16"), KV("rules.2.action", "allow"),
                            KV("rules.3.proto", "icmp"), KV("rules.3.action", "allow"))), 0);
    CHECK_EQ(tcp_to(in10, out, 22), NF_DROP); /* rule 0 wins over rule 1 */
    CHECK_EQ(tcp_to(in10, out, 80), 0);       /* rule 1 */
    CHECK_EQ(tcp_to(in10, out, 1023), 0);
    CHECK_EQ(tcp_to(in10, out, 1024), NF_DROP); /* outside the range: default */
    CHECK_EQ(tcp_to(ip4(11, 0, 0, 1), out, 80), NF_DROP);
    s = spec(NF_IPPROTO_UDP, out, ip4(192, 168, 4, 4), 1, 2);
    CHECK_EQ(run_pkt(0, f, build(f, &s), 0, 1), 0);
    s.frag = 0x0020; /* non-first fragment: rule 2 has wildcard ports, still matches */
    CHECK_EQ(run_pkt(0, f, build(f, &s), 0, 1), 0);
    s = spec(NF_IPPROTO_TCP, in10, out, 40000, 80);
    s.frag = 0x0020; /* no ports: rule 1 cannot match */
    CHECK_EQ(run_pkt(0, f, build(f, &s), 0, 1), NF_DROP);
    s = spec(NF_IPPROTO_ICMP, out, in10, 0, 0);
    CHECK_EQ(run_pkt(0, f, build(f, &s), 0, 1), 0);
    s.vlans = 2; /* rules see through VLAN stacks */
    CHECK_EQ(run_pkt(0, f, build(f, &s), 0, 1), 0);
    {
        static const uint8_t mac[6] = {2, 0, 0, 0, 0, 1};
        CHECK_EQ(run_pkt(0, f, build_arp(f, 1, mac, 1, 2), 0, 1), NF_DROP); /* non_ip: drop */
    }

    /* 1,000 rules: only the last one matches */
    {
        static struct nf_kv kv[1 + 3 * 1000];
        static char keys[3 * 1000][32], vals[1000][32];
        struct nf_config cfg = {kv, 0};
        char err[128];
        kv[cfg.n_items++] = (struct nf_kv){"rules.len", "1000"};
        for (int i = 0; i < 1000; i++) {
            snprintf(keys[3 * i], 32, "rules.%d.dst_port", i);
            snprintf(vals[i], 32, "%d", 1000 + i);
            kv[cfg.n_items++] = (struct nf_kv){keys[3 * i], i == 999 ? "*" : vals[i]};
            snprintf(keys[3 * i + 1], 32, "rules.%d.action", i);
            kv[cfg.n_items++] = (struct nf_kv){keys[3 * i + 1], i == 999 ? "allow" : "drop"};
            snprintf(keys[3 * i + 2], 32, "rules.%d.proto", i);
            kv[cfg.n_items++] = (struct nf_kv){keys[3 * i + 2], "tcp"};
        }
        CHECK_EQ(nf_init(&cfg, err, sizeof err), 0);
        CHECK_EQ(tcp_to(in10, out, 80), 0);
        CHECK_EQ(tcp_to(in10, out, 1500), NF_DROP); /* rule 500 */
        s = spec(NF_IPPROTO_UDP, in10, out, 1, 80);  /* no rule matches UDP: default drop */
        CHECK_EQ(run_pkt(0, f, build(f, &s), 0, 1), NF_DROP);
    }

    CHECK(init_nf(CONFIG(KV("rules.len", "1"), KV("rules.0.src", "10.0.0.0/33"), KV("rules.0.action", "drop"))) == -1 &&
          strstr(pkt_last_err, "rules.0.src"));
    CHECK(init_nf(CONFIG(KV("rules.len", "1"), KV("rules.0.dst_port", "90-80"), KV("rules.0.action", "drop"))) == -1 &&
          strstr(pkt_last_err, "rules.0.dst_port"));
    CHECK(init_nf(CONFIG(KV("rules.len", "1"), KV("rules.0.proto", "sctpx"), KV("rules.0.action", "drop"))) == -1 &&
          strstr(pkt_last_err, "rules.0.proto"));
    CHECK(init_nf(CONFIG(KV("rules.len", "1"), KV("rules.0.src", "*"))) == -1 && strstr(pkt_last_err, "rules.0.action"));
    CHECK(init_nf(CONFIG(KV("default_action", "maybe"))) == -1 && strstr(pkt_last_err, "default_action"));
    return test_finish("firewall");
}
