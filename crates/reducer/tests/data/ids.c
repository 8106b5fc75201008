/*
 * ids.c — a Snort-style intrusion detection NF (reducer golden input).
 *
 * Shaped like NFReducer's Fig. 1: the packet is decoded layer by layer into a
 * global header struct `net` (TCP and UDP share the sport/dport fields), then
 * the configured rules are matched in order; the first match decides.
 * Config keys: rules.len, rules.N.{src,dst} (prefix or "*"), rules.N.proto
 * (tcp|udp|icmp|any), rules.N.sport / rules.N.dport ("any", "p" or "lo-hi"),
 * rules.N.action (drop|pass|alert), default (pass|drop), debug (0|1).
 * State: per-rule alert counters and a packet counter.
 */
#include "nf.h"
#include <stdio.h>

#define IDS_MAX_RULES 64
#define ACT_PASS 0
#define ACT_DROP 1
#define ACT_ALERT 2

struct ids_rule {
    uint32_t src, smask, dst, dmask;
    uint8_t proto; /* 0 = any */
    uint16_t sport_lo, sport_hi, dport_lo, dport_hi;
    int32_t action;
};

/* Decoded packet, shared by every layer decoder (per-packet scratch). */
struct ids_net {
    uint32_t sip, dip;
    uint16_t sport, dport;
    uint8_t protocol;
    uint8_t tcp_flags;
    uint8_t icmp_type;
    uint8_t ttl;
    uint32_t payload_off;
    uint32_t payload_len;
};

static struct ids_net net;
static struct ids_rule rules[IDS_MAX_RULES];
static uint32_t n_rules;
static int32_t default_verdict;
static int debug_log;

struct ids_state {
    uint64_t packets;
    uint64_t decoded_l4;
    uint64_t alerts[IDS_MAX_RULES];
};

static const struct nf_info info = {NF_ABI_VERSION, "test-ids", 1};
const struct nf_info *nf_describe(void) { return &info; }
size_t nf_state_size(void) { return sizeof(struct ids_state); }

static int parse_port_range(const char *s, uint16_t *lo, uint16_t *hi)
{
    char buf[16];
    uint64_t a, b;
    const char *dash;
    size_t n;
    if (!s || strcmp(s, "any") == 0 || strcmp(s, "*") == 0) {
        *lo = 0;
        *hi = 65535;
        return 0;
    }
    dash = strchr(s, '-');
    if (!dash) {
        if (nf_parse_u64(s, &a) || a > 65535)
            return -1;
        *lo = *hi = (uint16_t)a;
        return 0;
    }
    n = (size_t)(dash - s);
    if (n >= sizeof buf)
        return -1;
    memcpy(buf, s, n);
    buf[n] = 0;
    if (nf_parse_u64(buf, &a) || nf_parse_u64(dash + 1, &b) || a > b || b > 65535)
        return -1;
    *lo = (uint16_t)a;
    *hi = (uint16_t)b;
    return 0;
}

int nf_init(const struct nf_config *cfg, char *err, size_t err_len)
{
    uint64_t n = 0, dbg = 0;
    char key[64];
    const char *v;
    if (nf_config_u64(cfg, "rules.len", 0, &n) || n > IDS_MAX_RULES)
        return nf_fail(err, err_len, "bad rule count", "rules.len");
    if (nf_config_u64(cfg, "debug", 0, &dbg))
        return nf_fail(err, err_len, "bad flag", "debug");
    debug_log = (int)dbg;
    v = nf_config_get(cfg, "default");
    default_verdict = (v && strcmp(v, "drop") == 0) ? NF_DROP : NF_PORT(0);
    for (uint32_t i = 0; i < n; i++) {
        struct ids_rule *r = &rules[i];
        snprintf(key, sizeof key, "rules.%u.src", i);
        if (nf_parse_prefix(nf_config_get(cfg, key) ? nf_config_get(cfg, key) : "*", &r->src, &r->smask))
            return nf_fail(err, err_len, "bad prefix", key);
        snprintf(key, sizeof key, "rules.%u.dst", i);
        if (nf_parse_prefix(nf_config_get(cfg, key) ? nf_config_get(cfg, key) : "*", &r->dst, &r->dmask))
            return nf_fail(err, err_len, "bad prefix", key);
        snprintf(key, sizeof key, "rules.%u.proto", i);
        v = nf_config_get(cfg, key);
        if (!v || strcmp(v, "any") == 0)
            r->proto = 0;
        else if (strcmp(v, "tcp") == 0)
            r->proto = NF_IPPROTO_TCP;
        else if (strcmp(v, "udp") == 0)
            r->proto = NF_IPPROTO_UDP;
        else if (strcmp(v, "icmp") == 0)
            r->proto = NF_IPPROTO_ICMP;
        else
            return nf_fail(err, err_len, "bad protocol", key);
        snprintf(key, sizeof key, "rules.%u.sport", i);
        if (parse_port_range(nf_config_get(cfg, key), &r->sport_lo, &r->sport_hi))
            return nf_fail(err, err_len, "bad port", key);
        snprintf(key, sizeof key, "rules.%u.dport", i);
        if (parse_port_range(nf_config_get(cfg, key), &r->dport_lo, &r->dport_hi))
            return nf_fail(err, err_len, "bad port", key);
        snprintf(key, sizeof key, "rules.%u.action", i);
        v = nf_config_get(cfg, key);
        if (!v || strcmp(v, "drop") == 0)
            r->action = ACT_DROP;
        else if (strcmp(v, "pass") == 0)
            r->action = ACT_PASS;
        else if (strcmp(v, "alert") == 0)
            r->action = ACT_ALERT;
        else
            return nf_fail(err, err_len, "bad action", key);
    }
    n_rules = (uint32_t)n;
    return 0;
}

static void decode_tcp(const uint8_t *p, uint32_t len, uint32_t off)
{
    const struct nf_tcp *t;
    uint32_t doff;
    if (len < off + sizeof(struct nf_tcp))
        return;
    t = (const struct nf_tcp *)(p + off);
    doff = (uint32_t)(t->doff_res >> 4) * 4u;
    if (doff < 20 || len < off + doff)
        return;
    net.sport = nf_ntohs(t->sport);
    net.dport = nf_ntohs(t->dport);
    net.tcp_flags = t->flags;
    net.payload_off = off + doff;
    if (debug_log)
        fprintf(stderr, "ids: tcp %u -> %u flags %x\n", net.sport, net.dport, net.tcp_flags);
}

static void decode_udp(const uint8_t *p, uint32_t len, uint32_t off)
{
    const struct nf_udp *u;
    if (len < off + sizeof(struct nf_udp))
        return;
    u = (const struct nf_udp *)(p + off);
    net.sport = nf_ntohs(u->sport);
    net.dport = nf_ntohs(u->dport);
    net.payload_off = off + (uint32_t)sizeof(struct nf_udp);
    if (debug_log)
        fprintf(stderr, "ids: udp %u -> %u\n", net.sport, net.dport);
}

static void decode_icmp(const uint8_t *p, uint32_t len, uint32_t off)
{
    if (len < off + sizeof(struct nf_icmp))
        return;
    net.icmp_type = ((const struct nf_icmp *)(p + off))->type;
    net.payload_off = off + (uint32_t)sizeof(struct nf_icmp);
}

/* Returns 0 when an IPv4 packet was decoded. */
static int decode_ip(const uint8_t *p, uint32_t len, uint32_t off)
{
    const struct nf_ipv4 *ip;
    uint32_t ihl;
    if (len < off + sizeof(struct nf_ipv4))
        return -1;
    ip = (const struct nf_ipv4 *)(p + off);
    ihl = (uint32_t)(ip->ver_ihl & 0x0f) * 4u;
    if ((ip->ver_ihl >> 4) != 4 || ihl < 20 || len < off + ihl)
        return -1;
    net.sip = nf_ntohl(ip->saddr);
    net.dip = nf_ntohl(ip->daddr);
    net.protocol = ip->proto;
    net.ttl = ip->ttl;
    if (debug_log)
        fprintf(stderr, "ids: ip %08x -> %08x proto %u\n", net.sip, net.dip, net.protocol);
    if (nf_ntohs(ip->frag_off) & 0x1fff)
        return 0;
    if (net.protocol == NF_IPPROTO_TCP)
        decode_tcp(p, len, off + ihl);
    else if (net.protocol == NF_IPPROTO_UDP)
        decode_udp(p, len, off + ihl);
    else if (net.protocol == NF_IPPROTO_ICMP)
        decode_icmp(p, len, off + ihl);
    return 0;
}

static int decode_eth(const struct nf_packet *pkt)
{
    const struct nf_eth *eth;
    memset(&net, 0, sizeof net);
    if (pkt->len < sizeof(struct nf_eth))
        return -1;
    eth = (const struct nf_eth *)pkt->data;
    if (nf_ntohs(eth->type) != NF_ETH_P_IPV4)
        return -1;
    if (decode_ip(pkt->data, pkt->len, sizeof(struct nf_eth)))
        return -1;
    net.payload_len = pkt->len > net.payload_off && net.payload_off ? pkt->len - net.payload_off : 0;
    return 0;
}

static int match_rule(const struct ids_rule *r)
{
    if ((net.sip & r->smask) != r->src)
        return 0;
    if ((net.dip & r->dmask) != r->dst)
        return 0;
    if (r->proto && r->proto != net.protocol)
        return 0;
    if (net.sport < r->sport_lo || net.sport > r->sport_hi)
        return 0;
    if (net.dport < r->dport_lo || net.dport > r->dport_hi)
        return 0;
    return 1;
}

int32_t nf_process(struct nf_ctx *ctx, struct nf_packet *pkt)
{
    struct ids_state *st = (struct ids_state *)ctx->state;
    st->packets++;
    if (decode_eth(pkt))
        return default_verdict;
    if (net.payload_off)
        st->decoded_l4++;
    for (uint32_t i = 0; i < n_rules; i++) {
        if (match_rule(&rules[i])) {
            if (rules[i].action == ACT_DROP)
                return NF_DROP;
            if (rules[i].action == ACT_ALERT)
                st->alerts[i]++;
            return NF_PORT(0);
        }
    }
    return default_verdict;
}
