/*
 * learning_bridge: a transparent learning switch. It learns which input
 * port each source MAC lives behind and forwards a frame to the port its
 * destination MAC was learned on; broadcast, multicast and unknown or aged
 * destinations go to the flood port (port number `ports`, which the chain
 * wires to every other segment); frames whose destination lives on their
 * own input port are filtered (dropped).
 *
 * The MAC table is an nf.h flow table keyed by MAC address in the state
 * instance. It is written when a source MAC is new, moves to another port,
 * or its entry is older than half the ageing time (a refresh), so ordinary
 * packets only read it. Entries are learned from one direction (source MAC)
 * and looked up by the other (destination MAC).
 *
 * Config: ports (number of bridge ports, 2..64, default 4), ageing_ms
 * (default 300000).
 */
#include "nf.h"

#define BRIDGE_TABLE_CAPACITY 16384

struct mac_key {
    uint8_t addr[6];
    uint8_t _pad[2];
};

struct mac_entry {
    uint64_t learned_ns;
    uint32_t port;
};

struct bridge_state {
    NF_FTABLE(struct mac_key, struct mac_entry, BRIDGE_TABLE_CAPACITY) fdb;
    uint64_t learn_failures;
};

static uint32_t n_bridge_ports = 4;
static uint64_t ageing_ns = 300000ull * 1000000ull;
static struct nf_info bridge_info = {NF_ABI_VERSION, "learning_bridge", 5};

const struct nf_info *nf_describe(void) { return &bridge_info; }

int nf_init(const struct nf_config *cfg, char *err, size_t err_len)
{
    uint64_t ports, ms;
    if (nf_config_u64(cfg, "ports", 4, &ports) || ports < 2 || ports > 64)
        return nf_fail(err, err_len, "expected 2..64 bridge ports", "ports");
    if (nf_config_u64(cfg, "ageing_ms", 300000, &ms) || ms == 0 || ms > 86400000ull)
        return nf_fail(err, err_len, "expected milliseconds (1..86400000)", "ageing_ms");
    n_bridge_ports = (uint32_t)ports;
    ageing_ns = ms * 1000000ull;
    bridge_info.n_ports = n_bridge_ports + 1; /* + the flood port */
    return 0;
}

size_t nf_state_size(void) { return sizeof(struct bridge_state); }

void nf_state_init(void *state)
{
    struct bridge_state *st = state;
    NF_FTABLE_INIT(&st->fdb);
}

static int is_group(const uint8_t *mac) { return mac[0] & 1; }

int32_t nf_process(struct nf_ctx *ctx, struct nf_packet *pkt)
{
    struct bridge_state *st = ctx->state;
    struct nf_eth *eth;
    struct mac_key src, dst;
    struct mac_entry *e;
    uint64_t now = ctx->now_ns;

    if (pkt->len < sizeof(struct nf_eth) || pkt->in_port >= n_bridge_ports)
        return NF_DROP;
    eth = (struct nf_eth *)pkt->data;

    /* Learn (or refresh) the source. */
    if (!is_group(eth->src)) {
        memset(&src, 0, sizeof src);
        memcpy(src.addr, eth->src, 6);
        e = nf_ftable_lookup(&st->fdb.hdr, &src);
        if (!e) {
            e = nf_ftable_insert(&st->fdb.hdr, &src);
            if (e) {
                e->port = pkt->in_port;
                e->learned_ns = now;
            } else {
                st->learn_failures++;
            }
        } else if (e->port != pkt->in_port || now - e->learned_ns > ageing_ns / 2) {
            e->port = pkt->in_port;
            e->learned_ns = now;
        }
    }

    /* Forward by destination. */
    if (is_group(eth->dst))
        return NF_PORT(n_bridge_ports);
    memset(&dst, 0, sizeof dst);
    memcpy(dst.addr, eth->dst, 6);
    e = nf_ftable_lookup(&st->fdb.hdr, &dst);
    if (!e || now - e->learned_ns > ageing_ns)
        return NF_PORT(n_bridge_ports);
    if (e->port == pkt->in_port)
        return NF_DROP;
    return NF_PORT(e->port);
}
