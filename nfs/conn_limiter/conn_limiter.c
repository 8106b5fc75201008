/*
 * conn_limiter: caps the number of concurrent TCP connections each source
 * address may open (like iptables' connlimit). A SYN that opens a new
 * connection is dropped when its source already has `max_conns` open ones;
 * otherwise the connection is recorded and the source's count grows. A FIN
 * or RST seen in either direction closes the connection and decrements the
 * initiator's count. Other packets only look the connection up.
 *
 * State: `conns`, an nf.h flow table keyed by the initiator's 5-tuple (a
 * reply is matched by the reversed tuple, so both directions meet the same
 * entry), and `sources`, a flow table keyed by source address with the
 * number of open connections. Both are written only when connections open
 * or close. Non-TCP traffic passes untouched.
 *
 * Config: max_conns (1..65535, required), drop_unknown (true | false,
 * default false: pass TCP segments of untracked connections).
 */
#include "nf.h"

#define CONN_CAPACITY 65536
#define SOURCE_CAPACITY 16384

struct conn_info {
    uint64_t opened_ns;
};

struct source_count {
    uint32_t open;
};

struct limiter_state {
    NF_FTABLE(struct nf_flow5, struct conn_info, CONN_CAPACITY) conns;
    NF_FTABLE(uint32_t, struct source_count, SOURCE_CAPACITY) sources;
    uint64_t rejected;
};

static uint32_t max_conns_per_source;
static int drop_unknown;
static const struct nf_info limiter_info = {NF_ABI_VERSION, "conn_limiter", 1};

const struct nf_info *nf_describe(void) { return &limiter_info; }

int nf_init(const struct nf_config *cfg, char *err, size_t err_len)
{
    uint64_t m;
    const char *v = nf_config_get(cfg, "max_conns");
    if (!v || nf_parse_u64(v, &m) || m == 0 || m > 65535)
        return nf_fail(err, err_len, "expected a connection limit 1..65535", "max_conns");
    max_conns_per_source = (uint32_t)m;
    v = nf_config_get(cfg, "drop_unknown");
    if (!v || !strcmp(v, "false"))
        drop_unknown = 0;
    else if (!strcmp(v, "true"))
        drop_unknown = 1;
    else
        return nf_fail(err, err_len, "expected true or false", "drop_unknown");
    return 0;
}

size_t nf_state_size(void) { return sizeof(struct limiter_state); }

void nf_state_init(void *state)
{
    struct limiter_state *st = state;
    NF_FTABLE_INIT(&st->conns);
    NF_FTABLE_INIT(&st->sources);
}

static void reverse_tuple(const struct nf_flow5 *in, struct nf_flow5 *out)
{
    memset(out, 0, sizeof *out);
    out->src_ip = in->dst_ip;
    out->dst_ip = in->src_ip;
    out->src_port = in->dst_port;
    out->dst_port = in->src_port;
    out->proto = in->proto;
}

static void close_conn(struct limiter_state *st, const struct nf_flow5 *initiator)
{
    struct source_count *sc = nf_ftable_lookup(&st->sources.hdr, &initiator->src_ip);
    nf_ftable_remove(&st->conns.hdr, initiator);
    if (sc && sc->open > 0 && --sc->open == 0)
        nf_ftable_remove(&st->sources.hdr, &initiator->src_ip);
}

int32_t nf_process(struct nf_ctx *ctx, struct nf_packet *pkt)
{
    struct limiter_state *st = ctx->state;
    struct nf_headers h;
    struct nf_flow5 fwd, rev;
    struct source_count *sc;
    struct conn_info *ci;
    uint8_t flags;

    if (nf_parse(pkt, &h) != 0)
        return NF_DROP;
    if (!h.ip4 || !h.tcp)
        return NF_PORT(0);
    nf_flow5_from(&h, &fwd);
    reverse_tuple(&fwd, &rev);
    flags = h.tcp->flags;

    if (nf_ftable_lookup(&st->conns.hdr, &fwd)) {
        if (flags & (NF_TCP_FIN | NF_TCP_RST))
            close_conn(st, &fwd);
        return NF_PORT(0);
    }
    if (nf_ftable_lookup(&st->conns.hdr, &rev)) {
        if (flags & (NF_TCP_FIN | NF_TCP_RST))
            close_conn(st, &rev);
        return NF_PORT(0);
    }
    if ((flags & (NF_TCP_SYN | NF_TCP_ACK | NF_TCP_RST | NF_TCP_FIN)) != NF_TCP_SYN)
        return drop_unknown ? NF_DROP : NF_PORT(0);

    /* A new connection. */
    sc = nf_ftable_lookup(&st->sources.hdr, &fwd.src_ip);
    if (sc && sc->open >= max_conns_per_source) {
        st->rejected++;
        return NF_DROP;
    }
    if (!sc)
        sc = nf_ftable_insert(&st->sources.hdr, &fwd.src_ip);
    if (!sc)
        return NF_DROP;
    ci = nf_ftable_insert(&st->conns.hdr, &fwd);
    if (!ci) {
        if (sc->open == 0)
            nf_ftable_remove(&st->sources.hdr, &fwd.src_ip);
        return NF_DROP;
    }
    ci->opened_ns = ctx->now_ns;
    sc->open++;
    return NF_PORT(0);
}
