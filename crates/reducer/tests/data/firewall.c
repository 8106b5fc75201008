/*
 * firewall.c — an ACL firewall NF (reducer golden input).
 *
 * Parses with nf_parse() into a local header struct, matches the configured
 * 5-tuple rules in order (first match wins) and optionally re-marks the DSCP
 * of passed IPv4 packets (a packet write, with incremental checksum update).
 * Config keys: rules.len, rules.N.{src,dst} (prefix or "*"), rules.N.proto
 * (tcp|udp|icmp|any), rules.N.dport ("any" or a port), rules.N.action
 * (allow|deny), default (allow|deny), mark_dscp (none or 0..63).
 * State: a hit counter per rule plus one for the default.
 */
#include "nf.h"
#include <stdio.h>

#define FW_MAX_RULES 32

struct fw_rule {
    uint32_t src, smask, dst, dmask;
    uint8_t proto;      /* 0 = any */
    uint8_t any_dport;  /* 1 = dport is a wildcard */
    uint16_t dport;
    int32_t verdict;
};

static struct fw_rule fw_rules[FW_MAX_RULES];
static uint32_t fw_n_rules;
static int32_t fw_default;
static int fw_mark;      /* -1: no marking */

struct fw_state {
    uint64_t hits[FW_MAX_RULES + 1];
};

static const struct nf_info info = {NF_ABI_VERSION, "test-firewall", 1};
const struct nf_info *nf_describe(void) { return &info; }
size_t nf_state_size(void) { return sizeof(struct fw_state); }

int nf_init(const struct nf_config *cfg, char *err, size_t err_len)
{
    uint64_t n, port;
    char key[64];
    const char *v;
    if (nf_config_u64(cfg, "rules.len", 0, &n) || n > FW_MAX_RULES)
        return nf_fail(err, err_len, "bad rule count", "rules.len");
    v = nf_config_get(cfg, "default");
    fw_default = (v && strcmp(v, "deny") == 0) ? NF_DROP : NF_PORT(0);
    v = nf_config_get(cfg, "mark_dscp");
    fw_mark = -1;
    if (v && strcmp(v, "none") != 0) {
        if (nf_parse_u64(v, &port) || port > 63)
            return nf_fail(err, err_len, "bad dscp", "mark_dscp");
        fw_mark = (int)port;
    }
    for (uint32_t i = 0; i < n; i++) {
        struct fw_rule *r = &fw_rules[i];
        snprintf(key, sizeof key, "rules.%u.src", i);
        v = nf_config_get(cfg, key);
        if (nf_parse_prefix(v ? v : "*", &r->src, &r->smask))
            return nf_fail(err, err_len, "bad prefix", key);
        snprintf(key, sizeof key, "rules.%u.dst", i);
        v = nf_config_get(cfg, key);
        if (nf_parse_prefix(v ? v : "*", &r->dst, &r->dmask))
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
        snprintf(key, sizeof key, "rules.%u.dport", i);
        v = nf_config_get(cfg, key);
        r->any_dport = !v || strcmp(v, "any") == 0;
        r->dport = 0;
        if (!r->any_dport) {
            if (nf_parse_u64(v, &port) || port > 65535)
                return nf_fail(err, err_len, "bad port", key);
            r->dport = (uint16_t)port;
        }
        snprintf(key, sizeof key, "rules.%u.action", i);
        v = nf_config_get(cfg, key);
        if (!v || strcmp(v, "deny") == 0)
            r->verdict = NF_DROP;
        else if (strcmp(v, "allow") == 0)
            r->verdict = NF_PORT(0);
        else
            return nf_fail(err, err_len, "bad action", key);
    }
    fw_n_rules = (uint32_t)n;
    return 0;
}

static void mark(struct nf_headers *h)
{
    struct nf_ipv4 *ip = h->ip4;
    uint8_t tos = (uint8_t)((fw_mark << 2) | (ip->tos & 3));
    uint32_t sum;
    /* RFC 1624 incremental update of the header checksum. */
    sum = (uint32_t)(~nf_ntohs(ip->check) & 0xffff) + (uint32_t)(~((ip->ver_ihl << 8) | ip->tos) & 0xffff) +
          (uint32_t)((ip->ver_ihl << 8) | tos);
    /* Three 16-bit terms: two folds always suffice. */
    sum = (sum & 0xffff) + (sum >> 16);
    sum = (sum & 0xffff) + (sum >> 16);
    ip->tos = tos;
    ip->check = nf_htons((uint16_t)~sum);
}

int32_t nf_process(struct nf_ctx *ctx, struct nf_packet *pkt)
{
    struct fw_state *st = (struct fw_state *)ctx->state;
    struct nf_headers h;
    uint32_t src, dst;
    uint16_t dport = 0;
    if (nf_parse(pkt, &h) || !h.ip4) {
        st->hits[FW_MAX_RULES]++;
        return fw_default;
    }
    if (fw_mark >= 0)
        mark(&h);
    src = nf_ntohl(h.ip4->saddr);
    dst = nf_ntohl(h.ip4->daddr);
    if (h.tcp)
        dport = nf_ntohs(h.tcp->dport);
    else if (h.udp)
        dport = nf_ntohs(h.udp->dport);
    for (uint32_t i = 0; i < fw_n_rules; i++) {
        const struct fw_rule *r = &fw_rules[i];
        if ((src & r->smask) == r->src && (dst & r->dmask) == r->dst && (!r->proto || r->proto == h.proto) &&
            (r->any_dport || r->dport == dport)) {
            st->hits[i]++;
            return r->verdict;
        }
    }
    st->hits[FW_MAX_RULES]++;
    return fw_default;
}
