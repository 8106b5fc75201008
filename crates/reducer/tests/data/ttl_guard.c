/*
 * ttl_guard.c — decrements the IPv4 TTL (with checksum update) and drops
 * packets whose TTL expires or, when `drop_udp` is set, UDP packets
 * (reducer golden input for overwritten logic: the TTL write is invisible on
 * every path that ends in a drop). Config keys: drop_udp (0|1), min_ttl.
 * State: counters of expired and filtered packets.
 */
#include "nf.h"

static int drop_udp;
static uint32_t min_ttl;

struct tg_state {
    uint64_t expired;
    uint64_t filtered;
};

static const struct nf_info info = {NF_ABI_VERSION, "test-ttl-guard", 1};
const struct nf_info *nf_describe(void) { return &info; }
size_t nf_state_size(void) { return sizeof(struct tg_state); }

int nf_init(const struct nf_config *cfg, char *err, size_t err_len)
{
    uint64_t v;
    if (nf_config_u64(cfg, "drop_udp", 0, &v) || v > 1)
        return nf_fail(err, err_len, "bad flag", "drop_udp");
    drop_udp = (int)v;
    if (nf_config_u64(cfg, "min_ttl", 1, &v) || v > 255)
        return nf_fail(err, err_len, "bad ttl", "min_ttl");
    min_ttl = (uint32_t)v;
    return 0;
}

int32_t nf_process(struct nf_ctx *ctx, struct nf_packet *pkt)
{
    struct tg_state *st = (struct tg_state *)ctx->state;
    struct nf_ipv4 *ip;
    uint32_t sum;
    uint8_t ttl;
    if (pkt->len < sizeof(struct nf_eth) + sizeof(struct nf_ipv4))
        return NF_PORT(0);
    if (nf_ntohs(((struct nf_eth *)pkt->data)->type) != NF_ETH_P_IPV4)
        return NF_PORT(0);
    ip = (struct nf_ipv4 *)(pkt->data + sizeof(struct nf_eth));
    ttl = ip->ttl;
    /* Decrement first (as routers do), then decide. */
    ip->ttl = (uint8_t)(ttl - 1);
    sum = (uint32_t)nf_ntohs(ip->check) + 0x0100u;
    sum = (sum & 0xffff) + (sum >> 16);
    ip->check = nf_htons((uint16_t)sum);
    if (ttl <= min_ttl) {
        st->expired++;
        return NF_DROP;
    }
    if (drop_udp && ip->proto == NF_IPPROTO_UDP) {
        st->filtered++;
        return NF_DROP;
    }
    return NF_PORT(0);
}
