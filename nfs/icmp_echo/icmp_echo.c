/*
 * icmp_echo: answers ICMP echo requests addressed to configured IPv4
 * addresses (the FLASH Ping Responder). The request is turned into an echo
 * reply in place: Ethernet and IP addresses swapped, TTL reset, ICMP type
 * 0, and both the IP header checksum and the ICMP checksum recomputed over
 * the message (bounded by the IP total length). Replies leave on port 1;
 * everything else passes on port 0. Fragmented requests are not answered.
 * Stateless.
 *
 * Config: ips (list of 1..64 addresses), ttl (reply TTL, default 64).
 */
#include "nf.h"
#include <stdio.h>

#define ECHO_MAX_IPS 64

static uint32_t echo_ips[ECHO_MAX_IPS]; /* host order */
static uint32_t echo_ip_count;
static uint8_t reply_ttl = 64;
static const struct nf_info echo_info = {NF_ABI_VERSION, "icmp_echo", 2};

const struct nf_info *nf_describe(void) { return &echo_info; }

int nf_init(const struct nf_config *cfg, char *err, size_t err_len)
{
    char key[32];
    uint64_t n, ttl;
    if (nf_config_u64(cfg, "ips.len", 0, &n) || n == 0 || n > ECHO_MAX_IPS)
        return nf_fail(err, err_len, "expected a list of 1..64 IPv4 addresses", "ips");
    for (echo_ip_count = 0; echo_ip_count < n; echo_ip_count++) {
        snprintf(key, sizeof key, "ips.%u", echo_ip_count);
        const char *v = nf_config_get(cfg, key);
        if (!v || nf_parse_ipv4(v, &echo_ips[echo_ip_count]))
            return nf_fail(err, err_len, "expected a dotted-quad IPv4 address", key);
    }
    if (nf_config_u64(cfg, "ttl", 64, &ttl) || ttl == 0 || ttl > 255)
        return nf_fail(err, err_len, "expected a TTL 1..255", "ttl");
    reply_ttl = (uint8_t)ttl;
    return 0;
}

size_t nf_state_size(void) { return 0; }

int32_t nf_process(struct nf_ctx *ctx, struct nf_packet *pkt)
{
    struct nf_headers h;
    struct nf_ipv4 *ip;
    struct nf_icmp *icmp;
    uint32_t ihl, icmp_len, dst, tmp;
    uint8_t mac[6];
    int ours = 0;
    (void)ctx;

    if (nf_parse(pkt, &h) != 0)
        return NF_DROP;
    ip = h.ip4;
    icmp = h.icmp;
    if (!ip || !icmp || h.proto != NF_IPPROTO_ICMP || (nf_ntohs(ip->frag_off) & 0x3fff) || icmp->type != 8 ||
        icmp->code != 0)
        return NF_PORT(0);
    ihl = (uint32_t)(ip->ver_ihl & 0x0f) * 4u;
    if (nf_ntohs(ip->tot_len) < ihl + sizeof(struct nf_icmp) || h.l3_off + nf_ntohs(ip->tot_len) > pkt->len)
        return NF_PORT(0);
    icmp_len = nf_ntohs(ip->tot_len) - ihl;
    dst = nf_ntohl(ip->daddr);
    for (uint32_t i = 0; i < echo_ip_count; i++)
        ours |= echo_ips[i] == dst;
    if (!ours)
        return NF_PORT(0);

    memcpy(mac, h.eth->dst, 6);
    memcpy(h.eth->dst, h.eth->src, 6);
    memcpy(h.eth->src, mac, 6);
    tmp = ip->saddr;
    ip->saddr = ip->daddr;
    ip->daddr = tmp;
    ip->ttl = reply_ttl;
    ip->check = 0;
    ip->check = nf_htons(nf_csum(ip, ihl, 0));
    icmp->type = 0;
    icmp->check = 0;
    icmp->check = nf_htons(nf_csum(icmp, icmp_len, 0));
    return NF_PORT(1);
}
