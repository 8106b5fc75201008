/*
 * nat: a source NAT (NAPT) for TCP and UDP over IPv4.
 *
 * Direction is given by the input port: packets arriving on port 0 travel
 * inside -> outside and leave on port 0 with their source address and port
 * rewritten to `external_ip` and an allocated external port; packets
 * arriving on port 1 travel outside -> inside, must hit an existing binding
 * (matched by external port and remote endpoint) and leave on port 1 with
 * their destination rewritten back. Both directions of a connection use the
 * same binding, so the NF is symmetric. IP and TCP/UDP checksums are fixed
 * incrementally.
 *
 * State: `bindings`, an array indexed by external port (the inside 5-tuple,
 * last use time), and `outbound`, an nf.h flow table from the inside
 * 5-tuple to the binding index. Every translated packet refreshes its
 * binding's last-use time (idle bindings are reclaimed after timeout_ms).
 *
 * Config: external_ip (required), port_min (default 1024), port_max
 * (default 65535), timeout_ms (default 60000).
 */
#include "nf.h"

#define NAT_MAX_BINDINGS 16384u
#define NAT_TABLE_CAPACITY 32768

struct nat_binding {
    struct nf_flow5 inside; /* host order; src = inside host, dst = remote */
    uint64_t last_ns;
    uint32_t used;
    uint32_t _pad;
};

struct nat_state {
    NF_FTABLE(struct nf_flow5, uint32_t, NAT_TABLE_CAPACITY) outbound;
    struct nat_binding bindings[NAT_MAX_BINDINGS];
    uint32_t cursor;     /* next binding index to try when allocating */
    uint32_t exhausted;  /* outbound packets dropped for lack of ports */
};

static uint32_t nat_external_ip; /* host order */
static uint32_t nat_port_min;
static uint32_t nat_n_ports;
static uint64_t nat_timeout_ns;

static const struct nf_info nat_info = {NF_ABI_VERSION, "nat", 2};

const struct nf_info *nf_describe(void) { return &nat_info; }

int nf_init(const struct nf_config *cfg, char *err, size_t err_len)
{
    const char *ext = nf_config_get(cfg, "external_ip");
    uint64_t lo, hi, timeout_ms;

    if (!ext)
        return nf_fail(err, err_len, "missing required key", "external_ip");
    if (nf_parse_ipv4(ext, &nat_external_ip))
        return nf_fail(err, err_len, "expected a dotted-quad IPv4 address", "external_ip");
    if (nf_config_u64(cfg, "port_min", 1024, &lo) || lo == 0 || lo > 65535)
        return nf_fail(err, err_len, "expected a port number (1..65535)", "port_min");
    if (nf_config_u64(cfg, "port_max", 65535, &hi) || hi > 65535 || hi < lo)
        return nf_fail(err, err_len, "expected a port number >= port_min and <= 65535", "port_max");
    if (nf_config_u64(cfg, "timeout_ms", 60000, &timeout_ms) || timeout_ms == 0 || timeout_ms > 86400000ull)
        return nf_fail(err, err_len, "expected a timeout in milliseconds (1..86400000)", "timeout_ms");
    nat_port_min = (uint32_t)lo;
    nat_n_ports = (uint32_t)(hi - lo + 1);
    if (nat_n_ports > NAT_MAX_BINDINGS)
        nat_n_ports = NAT_MAX_BINDINGS;
    nat_timeout_ns = timeout_ms * 1000000ull;
    return 0;
}

size_t nf_state_size(void) { return sizeof(struct nat_state); }

void nf_state_init(void *state)
{
    struct nat_state *st = state;
    NF_FTABLE_INIT(&st->outbound);
}

static int nat_expired(const struct nat_binding *b, uint64_t now)
{
    return now > b->last_ns && now - b->last_ns > nat_timeout_ns;
}

/* Find a free or idle binding for a new inside flow. */
static struct nat_binding *nat_allocate(struct nat_state *st, const struct nf_flow5 *inside, uint64_t now,
                                        uint32_t *index)
{
    for (uint32_t n = 0; n < nat_n_ports; n++) {
        uint32_t i = (st->cursor + n) % nat_n_ports;
        struct nat_binding *b = &st->bindings[i];
        uint32_t *slot;
        if (b->used && !nat_expired(b, now))
            continue;
        if (b->used)
            nf_ftable_remove(&st->outbound.hdr, &b->inside);
        slot = nf_ftable_insert(&st->outbound.hdr, inside);
        if (!slot)
            return 0;
        *slot = i;
        b->inside = *inside;
        b->used = 1;
        b->last_ns = now;
        st->cursor = (i + 1) % nat_n_ports;
        *index = i;
        return b;
    }
    return 0;
}

/* Rewrite one address and one port, fixing the IP and L4 checksums. */
static void nat_rewrite(struct nf_headers *h, int source, uint32_t new_ip, uint16_t new_port)
{
    uint32_t old_ip = source ? h->ip4->saddr : h->ip4->daddr;
    uint32_t new_ip_raw = nf_htonl(new_ip);
    uint16_t new_port_raw = nf_htons(new_port), old_port;

    h->ip4->check = nf_csum_replace32(h->ip4->check, old_ip, new_ip_raw);
    if (source)
        h->ip4->saddr = new_ip_raw;
    else
        h->ip4->daddr = new_ip_raw;

    if (h->tcp) {
        old_port = source ? h->tcp->sport : h->tcp->dport;
        h->tcp->check = nf_csum_replace32(h->tcp->check, old_ip, new_ip_raw);
        h->tcp->check = nf_csum_replace16(h->tcp->check, old_port, new_port_raw);
        if (source)
            h->tcp->sport = new_port_raw;
        else
            h->tcp->dport = new_port_raw;
    } else {
        old_port = source ? h->udp->sport : h->udp->dport;
        if (h->udp->check) {
            uint16_t c = nf_csum_replace32(h->udp->check, old_ip, new_ip_raw);
            c = nf_csum_replace16(c, old_port, new_port_raw);
            h->udp->check = c ? c : 0xffff;
        }
        if (source)
            h->udp->sport = new_port_raw;
        else
            h->udp->dport = new_port_raw;
    }
}

int32_t nf_process(struct nf_ctx *ctx, struct nf_packet *pkt)
{
    struct nat_state *st = ctx->state;
    struct nf_headers h;
    struct nf_flow5 tuple;
    struct nat_binding *b;
    uint32_t idx, *found;

    if (pkt->in_port > 1 || nf_parse(pkt, &h) != 0)
        return NF_DROP;
    if (!h.ip4)
        return h.ip6 ? NF_DROP : NF_PORT(pkt->in_port); /* ARP and other L2 traffic pass */
    if (h.is_fragment || (!h.tcp && !h.udp))
        return NF_DROP;
    nf_flow5_from(&h, &tuple);

    if (pkt->in_port == 0) {
        found = nf_ftable_lookup(&st->outbound.hdr, &tuple);
        if (found && *found < nat_n_ports) {
            idx = *found;
            b = &st->bindings[idx];
        } else {
            b = nat_allocate(st, &tuple, ctx->now_ns, &idx);
            if (!b) {
                st->exhausted++;
                return NF_DROP;
            }
        }
        b->last_ns = ctx->now_ns;
        nat_rewrite(&h, 1, nat_external_ip, (uint16_t)(nat_port_min + idx));
        return NF_PORT(0);
    }

    /* outside -> inside */
    if (tuple.dst_ip != nat_external_ip || tuple.dst_port < nat_port_min ||
        tuple.dst_port >= nat_port_min + nat_n_ports)
        return NF_DROP;
    b = &st->bindings[tuple.dst_port - nat_port_min];
    if (!b->used || nat_expired(b, ctx->now_ns) || b->inside.proto != tuple.proto ||
        b->inside.dst_ip != tuple.src_ip || b->inside.dst_port != tuple.src_port)
        return NF_DROP;
    b->last_ns = ctx->now_ns;
    nat_rewrite(&h, 0, b->inside.src_ip, b->inside.src_port);
    return NF_PORT(1);
}
