/*
 * firewall: a stateless ACL firewall (the FLASH test NF). An ordered list of
 * rules, each matching source/destination prefixes, source/destination port
 * ranges (or wildcards) and a protocol, is scanned sequentially for every
 * IPv4 packet; the first matching rule's action (allow -> port 0, drop)
 * wins, else `default_action` applies. No state is kept: the rules are
 * configuration in globals, read-only after nf_init.
 *
 * Non-first fragments carry no ports: they only match rules whose port
 * ranges are wildcards. Non-IPv4 frames follow `non_ip` (allow | drop).
 *
 * Config: rules (list of {src, dst, src_port, dst_port, proto, action};
 * omitted fields are wildcards; ports are "N", "LO-HI" or "*"; proto is
 * tcp | udp | icmp | any | a number), default_action (allow | drop,
 * default drop), non_ip (allow | drop, default allow).
 */
#include "nf.h"
#include <stdio.h>

#define FW_MAX_RULES 4096

enum fw_action { FW_ALLOW = 0, FW_DENY = 1 };

struct fw_rule {
    uint32_t src_net, src_mask;
    uint32_t dst_net, dst_mask;
    uint16_t sport_lo, sport_hi;
    uint16_t dport_lo, dport_hi;
    uint8_t proto; /* 0 = any */
    uint8_t action;
    uint8_t ports_wild; /* both port ranges are 0..65535 */
};

static struct fw_rule acl[FW_MAX_RULES];
static uint32_t acl_len;
static uint8_t default_action = FW_DENY;
static uint8_t non_ip_action = FW_ALLOW;

static const struct nf_info fw_info = {NF_ABI_VERSION, "firewall", 1};

const struct nf_info *nf_describe(void) { return &fw_info; }

static int parse_action(const char *s, uint8_t *out)
{
    if (!strcmp(s, "allow") || !strcmp(s, "accept") || !strcmp(s, "pass"))
        *out = FW_ALLOW;
    else if (!strcmp(s, "drop") || !strcmp(s, "deny"))
        *out = FW_DENY;
    else
        return -1;
    return 0;
}

static int parse_port_range(const char *s, uint16_t *lo, uint16_t *hi)
{
    char buf[16];
    const char *dash;
    uint64_t a, b;
    size_t n;

    if (!strcmp(s, "*") || !strcmp(s, "any")) {
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
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, s, n);
    buf[n] = 0;
    if (nf_parse_u64(buf, &a) || nf_parse_u64(dash + 1, &b) || a > b || b > 65535)
        return -1;
    *lo = (uint16_t)a;
    *hi = (uint16_t)b;
    return 0;
}

static int parse_proto(const char *s, uint8_t *out)
{
    uint64_t v;
    if (!strcmp(s, "any") || !strcmp(s, "*"))
        *out = 0;
    else if (!strcmp(s, "tcp"))
        *out = NF_IPPROTO_TCP;
    else if (!strcmp(s, "udp"))
        *out = NF_IPPROTO_UDP;
    else if (!strcmp(s, "icmp"))
        *out = NF_IPPROTO_ICMP;
    else if (!nf_parse_u64(s, &v) && v <= 255)
        *out = (uint8_t)v;
    else
        return -1;
    return 0;
}

int nf_init(const struct nf_config *cfg, char *err, size_t err_len)
{
    static char key[64];
    const char *v;
    uint64_t n;

    if ((v = nf_config_get(cfg, "default_action")) && parse_action(v, &default_action))
        return nf_fail(err, err_len, "expected allow or drop", "default_action");
    if ((v = nf_config_get(cfg, "non_ip")) && parse_action(v, &non_ip_action))
        return nf_fail(err, err_len, "expected allow or drop", "non_ip");
    if (nf_config_u64(cfg, "rules.len", 0, &n) || n > FW_MAX_RULES)
        return nf_fail(err, err_len, "expected at most 4096 rules", "rules");

    for (acl_len = 0; acl_len < n; acl_len++) {
        struct fw_rule *r = &acl[acl_len];
        memset(r, 0, sizeof *r);
        r->sport_hi = r->dport_hi = 65535;
#define FIELD(name) (snprintf(key, sizeof key, "rules.%u." name, acl_len), nf_config_get(cfg, key))
        if ((v = FIELD("src")) && nf_parse_prefix(v, &r->src_net, &r->src_mask))
            return nf_fail(err, err_len, "expected an IPv4 prefix a.b.c.d/len or *", key);
        if ((v = FIELD("dst")) && nf_parse_prefix(v, &r->dst_net, &r->dst_mask))
            return nf_fail(err, err_len, "expected an IPv4 prefix a.b.c.d/len or *", key);
        if ((v = FIELD("src_port")) && parse_port_range(v, &r->sport_lo, &r->sport_hi))
            return nf_fail(err, err_len, "expected a port, LO-HI range or *", key);
        if ((v = FIELD("dst_port")) && parse_port_range(v, &r->dport_lo, &r->dport_hi))
            return nf_fail(err, err_len, "expected a port, LO-HI range or *", key);
        if ((v = FIELD("proto")) && parse_proto(v, &r->proto))
            return nf_fail(err, err_len, "expected tcp, udp, icmp, any or a protocol number", key);
        v = FIELD("action");
        if (!v || parse_action(v, &r->action))
            return nf_fail(err, err_len, "expected allow or drop", key);
#undef FIELD
        r->ports_wild = r->sport_lo == 0 && r->sport_hi == 65535 && r->dport_lo == 0 && r->dport_hi == 65535;
    }
    return 0;
}

size_t nf_state_size(void) { return 0; }

static int rule_matches(const struct fw_rule *r, uint32_t src, uint32_t dst, uint8_t proto, int has_ports,
                        uint16_t sport, uint16_t dport)
{
    if ((src & r->src_mask) != r->src_net || (dst & r->dst_mask) != r->dst_net)
        return 0;
    if (r->proto && r->proto != proto)
        return 0;
    if (r->ports_wild)
        return 1;
    if (!has_ports)
        return 0;
    return sport >= r->sport_lo && sport <= r->sport_hi && dport >= r->dport_lo && dport <= r->dport_hi;
}

int32_t nf_process(struct nf_ctx *ctx, struct nf_packet *pkt)
{
    struct nf_headers hdrs;
    uint32_t src, dst;
    uint16_t sport = 0, dport = 0;
    int has_ports = 0;
    (void)ctx;

    if (nf_parse(pkt, &hdrs) != 0)
        return NF_DROP;
    if (!hdrs.ip4)
        return non_ip_action == FW_ALLOW ? NF_PORT(0) : NF_DROP;
    src = nf_ntohl(hdrs.ip4->saddr);
    dst = nf_ntohl(hdrs.ip4->daddr);
    if (hdrs.tcp) {
        sport = nf_ntohs(hdrs.tcp->sport);
        dport = nf_ntohs(hdrs.tcp->dport);
        has_ports = 1;
    } else if (hdrs.udp) {
        sport = nf_ntohs(hdrs.udp->sport);
        dport = nf_ntohs(hdrs.udp->dport);
        has_ports = 1;
    }
    for (uint32_t i = 0; i < acl_len; i++) {
        if (rule_matches(&acl[i], src, dst, hdrs.proto, has_ports, sport, dport))
            return acl[i].action == FW_ALLOW ? NF_PORT(0) : NF_DROP;
    }
    return default_action == FW_ALLOW ? NF_PORT(0) : NF_DROP;
}
