/*
 * src_ip_counter: counts packets and bytes per IPv4 source address
 * (FlowMage's ISourceCounter). Written in a "by hand" style: it decodes the
 * Ethernet/VLAN/IPv4 headers with its own wire structs and keeps its own
 * open-addressing table (linear probing over an array of counters) instead
 * of using nf.h's parser and flow table. Every counted packet increments its
 * source's counters. Packets are never dropped by policy; runt frames are.
 *
 * Config: count_vlan_tagged (true | false, default true): whether frames
 * carrying 802.1Q/802.1ad tags are counted (they are always forwarded).
 */
#include "nf.h"

#define SRC_TABLE_SIZE 16384u /* power of two */
#define MAX_PROBES 64u

struct eth_hdr {
    uint8_t dst[6];
    uint8_t src[6];
    uint8_t type[2];
};

struct ip_hdr {
    uint8_t vhl;
    uint8_t tos;
    uint8_t len[2];
    uint8_t id[2];
    uint8_t off[2];
    uint8_t ttl;
    uint8_t p;
    uint8_t sum[2];
    uint8_t src[4];
    uint8_t dst[4];
};

struct src_counter {
    uint32_t addr;
    uint32_t in_use;
    uint64_t packets;
    uint64_t bytes;
};

struct counter_table {
    struct src_counter slots[SRC_TABLE_SIZE];
    uint64_t overflow_packets; /* packets whose source found no free slot */
};

static int count_vlan_tagged = 1;
static const struct nf_info info = {NF_ABI_VERSION, "src_ip_counter", 1};

const struct nf_info *nf_describe(void) { return &info; }

int nf_init(const struct nf_config *cfg, char *err, size_t err_len)
{
    const char *v = nf_config_get(cfg, "count_vlan_tagged");
    if (!v || !strcmp(v, "true"))
        count_vlan_tagged = 1;
    else if (!strcmp(v, "false"))
        count_vlan_tagged = 0;
    else
        return nf_fail(err, err_len, "expected true or false", "count_vlan_tagged");
    return 0;
}

size_t nf_state_size(void) { return sizeof(struct counter_table); }

static uint32_t be16(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }
static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint32_t mix32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

int32_t nf_process(struct nf_ctx *ctx, struct nf_packet *pkt)
{
    struct counter_table *tbl = (struct counter_table *)ctx->state;
    const uint8_t *p = pkt->data;
    uint32_t off = sizeof(struct eth_hdr), ethertype, src, i, probe;
    int tagged = 0;
    const struct ip_hdr *ip;

    if (pkt->len < sizeof(struct eth_hdr))
        return NF_DROP;
    ethertype = be16(((const struct eth_hdr *)p)->type);
    while ((ethertype == 0x8100 || ethertype == 0x88a8) && pkt->len >= off + 4) {
        ethertype = be16(p + off + 2);
        off += 4;
        tagged = 1;
    }
    if (ethertype != 0x0800 || pkt->len < off + sizeof(struct ip_hdr))
        return NF_PORT(0);
    if (tagged && !count_vlan_tagged)
        return NF_PORT(0);
    ip = (const struct ip_hdr *)(p + off);
    if ((ip->vhl >> 4) != 4 || (ip->vhl & 15) < 5)
        return NF_PORT(0);

    src = be32(ip->src);
    i = mix32(src) & (SRC_TABLE_SIZE - 1);
    for (probe = 0; probe < MAX_PROBES; probe++) {
        struct src_counter *c = &tbl->slots[i];
        if (!c->in_use) {
            c->in_use = 1;
            c->addr = src;
        }
        if (c->addr == src) {
            c->packets++;
            c->bytes += pkt->len;
            return NF_PORT(0);
        }
        i = (i + 1) & (SRC_TABLE_SIZE - 1);
    }
    tbl->overflow_packets++;
    return NF_PORT(0);
}
