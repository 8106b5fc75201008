/*
 * arp_responder: answers ARP requests for configured IPv4 addresses (the
 * FLASH ARP Responder). A request whose target address is one of `ips` is
 * turned into a reply in place (operation 2, sender = our MAC/IP, target =
 * the requester; Ethernet addresses swapped) and sent out on port 1, back
 * toward the requester. Every other frame passes on port 0 untouched.
 * 802.1Q tags are preserved. Stateless: the address list is configuration.
 *
 * Config: mac (required), ips (list of addresses, 1..64).
 */
#include "nf.h"
#include <stdio.h>

#define ARP_MAX_IPS 64

typedef struct {
    uint8_t h_dest[6];
    uint8_t h_source[6];
    uint16_t h_proto;
} __attribute__((packed)) ether_header_t;

typedef struct {
    uint16_t ar_hrd, ar_pro;
    uint8_t ar_hln, ar_pln;
    uint16_t ar_op;
    uint8_t ar_sha[6];
    uint8_t ar_sip[4];
    uint8_t ar_tha[6];
    uint8_t ar_tip[4];
} __attribute__((packed)) arp_packet_t;

static uint8_t my_mac[6];
static uint8_t my_ips[ARP_MAX_IPS][4];
static uint32_t my_ip_count;
static const struct nf_info arp_info = {NF_ABI_VERSION, "arp_responder", 2};

const struct nf_info *nf_describe(void) { return &arp_info; }

int nf_init(const struct nf_config *cfg, char *err, size_t err_len)
{
    char key[32];
    uint64_t n;
    const char *mac = nf_config_get(cfg, "mac");
    if (!mac || nf_parse_mac(mac, my_mac))
        return nf_fail(err, err_len, "expected a MAC address aa:bb:cc:dd:ee:ff", "mac");
    if (nf_config_u64(cfg, "ips.len", 0, &n) || n == 0 || n > ARP_MAX_IPS)
        return nf_fail(err, err_len, "expected a list of 1..64 IPv4 addresses", "ips");
    for (my_ip_count = 0; my_ip_count < n; my_ip_count++) {
        uint32_t a;
        const char *v;
        snprintf(key, sizeof key, "ips.%u", my_ip_count);
        v = nf_config_get(cfg, key);
        if (!v || nf_parse_ipv4(v, &a))
            return nf_fail(err, err_len, "expected a dotted-quad IPv4 address", key);
        a = nf_htonl(a);
        memcpy(my_ips[my_ip_count], &a, 4);
    }
    return 0;
}

size_t nf_state_size(void) { return 0; }

static int is_my_ip(const uint8_t ip[4])
{
    for (uint32_t i = 0; i < my_ip_count; i++)
        if (memcmp(my_ips[i], ip, 4) == 0)
            return 1;
    return 0;
}

int32_t nf_process(struct nf_ctx *ctx, struct nf_packet *pkt)
{
    ether_header_t *eth;
    arp_packet_t *arp;
    uint32_t off = sizeof(ether_header_t);
    uint16_t proto;
    uint8_t target[4];
    (void)ctx;

    if (pkt->len < sizeof(ether_header_t))
        return NF_DROP;
    eth = (ether_header_t *)pkt->data;
    proto = nf_ntohs(eth->h_proto);
    if (proto == NF_ETH_P_VLAN) {
        if (pkt->len < off + 4)
            return NF_PORT(0);
        memcpy(&proto, pkt->data + off + 2, sizeof proto);
        proto = nf_ntohs(proto);
        off += 4;
    }
    if (proto != NF_ETH_P_ARP || pkt->len < off + sizeof(arp_packet_t))
        return NF_PORT(0);
    arp = (arp_packet_t *)(pkt->data + off);
    if (nf_ntohs(arp->ar_hrd) != 1 || nf_ntohs(arp->ar_pro) != NF_ETH_P_IPV4 || arp->ar_hln != 6 ||
        arp->ar_pln != 4 || nf_ntohs(arp->ar_op) != 1 || !is_my_ip(arp->ar_tip))
        return NF_PORT(0);

    memcpy(target, arp->ar_tip, 4);
    arp->ar_op = nf_htons(2);
    memcpy(arp->ar_tha, arp->ar_sha, 6);
    memcpy(arp->ar_tip, arp->ar_sip, 4);
    memcpy(arp->ar_sha, my_mac, 6);
    memcpy(arp->ar_sip, target, 4);
    memcpy(eth->h_dest, arp->ar_tha, 6);
    memcpy(eth->h_source, my_mac, 6);
    return NF_PORT(1);
}
