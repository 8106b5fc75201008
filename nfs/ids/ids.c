/*
 * ids: a Snort-style intrusion detection system (the NFReducer example).
 *
 * Like Snort 1.0, it first decodes the frame by hand, layer by layer
 * (DecodeEthPkt -> DecodeIP -> DecodeTCP/UDP/ICMP), into a thread-local
 * global header struct `net`, then walks the configured rule list and
 * applies the first rule whose protocol, addresses, ports and optional
 * payload substring all match: `alert` (count and forward on port 0),
 * `drop`, or `pass` (forward without counting). Unmatched traffic passes.
 *
 * Per-rule alert counters are global statistics (atomically incremented),
 * not per-flow state: the NF keeps no state instance.
 *
 * Config: rules (list of {action, proto, src, dst, src_port, dst_port,
 * content}; omitted fields match anything; proto tcp | udp | icmp | ip).
 */
#include "nf.h"
#include <stdio.h>

#define IDS_MAX_RULES 1024
#define IDS_MAX_CONTENT 64

/* ---- decoded packet (per-packet scratch, not state) ---- */
struct decoded_net {
    int has_ip;
    int has_l4;           /* ports below are valid */
    uint8_t proto;
    uint32_t sip, dip;    /* host order */
    uint16_t sp, dp;
    const uint8_t *data;  /* L4 payload */
    uint32_t dsize;
};

static __thread struct decoded_net net;

/* ---- rules (configuration) ---- */
enum ids_action { ACT_ALERT, ACT_DROP, ACT_PASS };

struct ids_rule {
    uint8_t action;
    uint8_t proto;       /* 0 = ip (any) */
    uint32_t sip, smask, dip, dmask;
    uint16_t sp_lo, sp_hi, dp_lo, dp_hi;
    uint32_t content_len; /* 0 = no content option */
    uint8_t content[IDS_MAX_CONTENT];
};

static struct ids_rule rules[IDS_MAX_RULES];
static uint32_t n_rules;
static uint64_t alert_counts[IDS_MAX_RULES]; /* global statistics */

static const struct nf_info ids_info = {NF_ABI_VERSION, "ids", 1};

const struct nf_info *nf_describe(void) { return &ids_info; }

/* Number of alerts raised by rule `i` so far. */
uint64_t ids_alert_count(uint32_t i)
{
    return i < n_rules ? __atomic_load_n(&alert_counts[i], __ATOMIC_RELAXED) : 0;
}

static int parse_ports(const char *s, uint16_t *lo, uint16_t *hi)
{
    uint64_t a, b;
    const char *colon;
    char tmp[8];
    if (!strcmp(s, "any")) {
        *lo = 0;
        *hi = 65535;
        return 0;
    }
    colon = strchr(s, ':'); /* Snort range syntax LO:HI */
    if (!colon) {
        if (nf_parse_u64(s, &a) || a > 65535)
            return -1;
        *lo = *hi = (uint16_t)a;
        return 0;
    }
    if (colon == s || (size_t)(colon - s) >= sizeof tmp)
        return -1;
    memcpy(tmp, s, (size_t)(colon - s));
    tmp[colon - s] = 0;
    if (nf_parse_u64(tmp, &a) || nf_parse_u64(colon + 1, &b) || a > b || b > 65535)
        return -1;
    *lo = (uint16_t)a;
    *hi = (uint16_t)b;
    return 0;
}

int nf_init(const struct nf_config *cfg, char *err, size_t err_len)
{
    static char k[64];
    uint64_t n;
    const char *v;

    if (nf_config_u64(cfg, "rules.len", 0, &n) || n > IDS_MAX_RULES)
        return nf_fail(err, err_len, "expected at most 1024 rules", "rules");
    memset(alert_counts, 0, sizeof alert_counts);
    for (n_rules = 0; n_rules < n; n_rules++) {
        struct ids_rule *r = &rules[n_rules];
        memset(r, 0, sizeof *r);
        r->sp_hi = r->dp_hi = 65535;

        snprintf(k, sizeof k, "rules.%u.action", n_rules);
        v = nf_config_get(cfg, k);
        if (!v)
            v = "alert";
        if (!strcmp(v, "alert"))
            r->action = ACT_ALERT;
        else if (!strcmp(v, "drop"))
            r->action = ACT_DROP;
        else if (!strcmp(v, "pass"))
            r->action = ACT_PASS;
        else
            return nf_fail(err, err_len, "expected alert, drop or pass", k);

        snprintf(k, sizeof k, "rules.%u.proto", n_rules);
        if ((v = nf_config_get(cfg, k))) {
            if (!strcmp(v, "tcp"))
                r->proto = NF_IPPROTO_TCP;
            else if (!strcmp(v, "udp"))
                r->proto = NF_IPPROTO_UDP;
            else if (!strcmp(v, "icmp"))
                r->proto = NF_IPPROTO_ICMP;
            else if (strcmp(v, "ip") && strcmp(v, "any"))
                return nf_fail(err, err_len, "expected tcp, udp, icmp or ip", k);
        }
        snprintf(k, sizeof k, "rules.%u.src", n_rules);
        if ((v = nf_config_get(cfg, k)) && nf_parse_prefix(v, &r->sip, &r->smask))
            return nf_fail(err, err_len, "expected an IPv4 prefix or any", k);
        snprintf(k, sizeof k, "rules.%u.dst", n_rules);
        if ((v = nf_config_get(cfg, k)) && nf_parse_prefix(v, &r->dip, &r->dmask))
            return nf_fail(err, err_len, "expected an IPv4 prefix or any", k);
        snprintf(k, sizeof k, "rules.%u.src_port", n_rules);
        if ((v = nf_config_get(cfg, k)) && parse_ports(v, &r->sp_lo, &r->sp_hi))
            return nf_fail(err, err_len, "expected a port, LO:HI or any", k);
        snprintf(k, sizeof k, "rules.%u.dst_port", n_rules);
        if ((v = nf_config_get(cfg, k)) && parse_ports(v, &r->dp_lo, &r->dp_hi))
            return nf_fail(err, err_len, "expected a port, LO:HI or any", k);
        snprintf(k, sizeof k, "rules.%u.content", n_rules);
        if ((v = nf_config_get(cfg, k))) {
            size_t len = strlen(v);
            if (len == 0 || len > IDS_MAX_CONTENT)
                return nf_fail(err, err_len, "expected 1..64 bytes of content", k);
            memcpy(r->content, v, len);
            r->content_len = (uint32_t)len;
        }
    }
    return 0;
}

size_t nf_state_size(void) { return 0; }

/* ---- decoders: each fills `net` and hands the rest to the next layer ---- */
static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void decode_tcp(const uint8_t *p, uint32_t len)
{
    uint32_t hlen;
    if (len < 20)
        return;
    hlen = (uint32_t)(p[12] >> 4) * 4;
    if (hlen < 20 || hlen > len)
        return;
    net.sp = rd16(p);
    net.dp = rd16(p + 2);
    net.has_l4 = 1;
    net.data = p + hlen;
    net.dsize = len - hlen;
}

static void decode_udp(const uint8_t *p, uint32_t len)
{
    uint32_t ulen;
    if (len < 8)
        return;
    ulen = rd16(p + 4);
    if (ulen < 8 || ulen > len)
        ulen = len; /* trust the capture, not the header */
    net.sp = rd16(p);
    net.dp = rd16(p + 2);
    net.has_l4 = 1;
    net.data = p + 8;
    net.dsize = ulen - 8;
}

static void decode_icmp(const uint8_t *p, uint32_t len)
{
    if (len < 4)
        return;
    net.data = p + 4;
    net.dsize = len - 4;
}

static void decode_ip(const uint8_t *p, uint32_t len)
{
    uint32_t hlen, total;
    if (len < 20 || (p[0] >> 4) != 4)
        return;
    hlen = (uint32_t)(p[0] & 0x0f) * 4;
    total = rd16(p + 2);
    if (hlen < 20 || hlen > len || total < hlen)
        return;
    if (total < len)
        len = total; /* ignore Ethernet padding */
    net.has_ip = 1;
    net.proto = p[9];
    net.sip = rd32(p + 12);
    net.dip = rd32(p + 16);
    if (rd16(p + 6) & 0x1fff)
        return; /* non-first fragment: no transport header */
    switch (net.proto) {
    case NF_IPPROTO_TCP:
        decode_tcp(p + hlen, len - hlen);
        break;
    case NF_IPPROTO_UDP:
        decode_udp(p + hlen, len - hlen);
        break;
    case NF_IPPROTO_ICMP:
        decode_icmp(p + hlen, len - hlen);
        break;
    default:
        break;
    }
}

static void decode_eth(const uint8_t *p, uint32_t len)
{
    uint32_t off = 14;
    uint16_t type;
    memset(&net, 0, sizeof net);
    if (len < 14)
        return;
    type = rd16(p + 12);
    for (int tags = 0; (type == 0x8100 || type == 0x88a8) && tags < 2; tags++) {
        if (len < off + 4)
            return;
        type = rd16(p + off + 2);
        off += 4;
    }
    if (type == 0x0800)
        decode_ip(p + off, len - off);
}

/* ---- detection ---- */
static int content_match(const struct ids_rule *r)
{
    if (!r->content_len)
        return 1;
    if (!net.data || net.dsize < r->content_len)
        return 0;
    for (uint32_t i = 0; i + r->content_len <= net.dsize; i++)
        if (net.data[i] == r->content[0] && memcmp(net.data + i, r->content, r->content_len) == 0)
            return 1;
    return 0;
}

static int rule_match(const struct ids_rule *r)
{
    if (r->proto && r->proto != net.proto)
        return 0;
    if ((net.sip & r->smask) != r->sip || (net.dip & r->dmask) != r->dip)
        return 0;
    if (r->sp_lo != 0 || r->sp_hi != 65535 || r->dp_lo != 0 || r->dp_hi != 65535) {
        if (!net.has_l4)
            return 0;
        if (net.sp < r->sp_lo || net.sp > r->sp_hi || net.dp < r->dp_lo || net.dp > r->dp_hi)
            return 0;
    }
    return content_match(r);
}

int32_t nf_process(struct nf_ctx *ctx, struct nf_packet *pkt)
{
    (void)ctx;
    if (pkt->len < 14)
        return NF_DROP;
    decode_eth(pkt->data, pkt->len);
    if (!net.has_ip)
        return NF_PORT(0);
    for (uint32_t i = 0; i < n_rules; i++) {
        if (!rule_match(&rules[i]))
            continue;
        switch (rules[i].action) {
        case ACT_DROP:
            return NF_DROP;
        case ACT_ALERT:
            __atomic_fetch_add(&alert_counts[i], 1, __ATOMIC_RELAXED);
            return NF_PORT(0);
        default:
            return NF_PORT(0);
        }
    }
    return NF_PORT(0);
}
