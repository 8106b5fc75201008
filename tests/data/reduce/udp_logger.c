/*
 * udp_logger.c — a user NF (not a built-in) for the CLI's reducer tests:
 * drops UDP to one configured destination port, counts what it drops, and
 * prints a line to stderr every 1024 drops. The print is observability
 * logic: it cannot change a verdict, a packet byte or the state, so
 * `nfc build --emit reduced` reports it and removes it only with
 * `--strip-observability`. Config keys: udp_port (0..65535).
 */
#include <stdio.h>
#include "nf.h"

static uint32_t udp_port;

struct ul_state {
    uint64_t dropped;
};

static const struct nf_info info = {NF_ABI_VERSION, "udp-logger", 1};
const struct nf_info *nf_describe(void) { return &info; }
size_t nf_state_size(void) { return sizeof(struct ul_state); }

int nf_init(const struct nf_config *cfg, char *err, size_t err_len)
{
    uint64_t v;
    if (nf_config_u64(cfg, "udp_port", 53, &v) || v > 65535)
        return nf_fail(err, err_len, "expected a port 0..65535", "udp_port");
    udp_port = (uint32_t)v;
    return 0;
}

int32_t nf_process(struct nf_ctx *ctx, struct nf_packet *pkt)
{
    struct ul_state *st = (struct ul_state *)ctx->state;
    struct nf_ipv4 *ip;
    struct nf_udp *udp;
    size_t l3 = sizeof(struct nf_eth);
    if (pkt->len < l3 + sizeof(struct nf_ipv4) + sizeof(struct nf_udp))
        return NF_PORT(0);
    if (nf_ntohs(((struct nf_eth *)pkt->data)->type) != NF_ETH_P_IPV4)
        return NF_PORT(0);
    ip = (struct nf_ipv4 *)(pkt->data + l3);
    if (ip->proto != NF_IPPROTO_UDP || (ip->ver_ihl & 0x0f) != 5)
        return NF_PORT(0);
    udp = (struct nf_udp *)(pkt->data + l3 + sizeof(struct nf_ipv4));
    if (nf_ntohs(udp->dport) != udp_port)
        return NF_PORT(0);
    st->dropped++;
    if ((st->dropped & 1023) == 0)
        fprintf(stderr, "udp_logger: %llu packets dropped\n", (unsigned long long)st->dropped);
    return NF_DROP;
}
