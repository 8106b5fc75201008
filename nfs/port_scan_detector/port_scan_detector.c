/*
 * port_scan_detector: flags IPv4 sources that contact many distinct
 * destination ports within a time window (a FlowMage IPortScanDetector).
 *
 * Per-source state lives in a chained hash table inside the state instance:
 * a bucket array of head indices and a pool of host nodes linked by a
 * `next` index, so lookups chase links but the state holds no absolute
 * pointers. Every tracked packet updates its host node (last_seen, packet
 * count, port set), so the NF writes its state on every packet.
 *
 * Config: threshold (distinct ports, 1..64, default 8), window_ms (default
 * 10000), action (drop | mark; mark sends flagged sources to port 1).
 */
#include "nf.h"

#define PSD_BUCKETS 4096u
#define PSD_MAX_HOSTS 8192u
#define PSD_PORT_SLOTS 64u
#define PSD_NIL 0xffffffffu

/* Configuration, written only by nf_init. */
static uint32_t g_threshold = 8;
static uint64_t g_window_ns = 10000ull * 1000000ull;
static int g_drop_flagged = 1;

static struct nf_info g_info = {NF_ABI_VERSION, "port_scan_detector", 2};

/* One tracked source host: a node of a bucket chain. */
struct psd_host {
    uint32_t src_ip;          /* host order */
    uint32_t next;            /* next node in the chain, PSD_NIL at the end */
    uint64_t window_start_ns; /* start of the current observation window */
    uint64_t last_seen_ns;
    uint32_t packets;
    uint16_t n_ports;         /* distinct destination ports seen in the window */
    uint8_t flagged;
    uint8_t _pad;
    uint16_t ports[PSD_PORT_SLOTS];
};

struct psd_state {
    uint32_t heads[PSD_BUCKETS]; /* first node of each chain, PSD_NIL if empty */
    uint32_t n_used;             /* nodes handed out from the pool */
    uint32_t untracked;          /* packets seen while the pool was exhausted */
    struct psd_host hosts[PSD_MAX_HOSTS];
};

const struct nf_info *nf_describe(void) { return &g_info; }

int nf_init(const struct nf_config *cfg, char *err, size_t err_len)
{
    uint64_t v;
    const char *action;

    if (nf_config_u64(cfg, "threshold", 8, &v) || v == 0 || v > PSD_PORT_SLOTS)
        return nf_fail(err, err_len, "expected an integer between 1 and 64", "threshold");
    g_threshold = (uint32_t)v;
    if (nf_config_u64(cfg, "window_ms", 10000, &v) || v == 0 || v > 86400000ull)
        return nf_fail(err, err_len, "expected a window in milliseconds (1..86400000)", "window_ms");
    g_window_ns = v * 1000000ull;
    action = nf_config_get(cfg, "action");
    if (!action || strcmp(action, "drop") == 0)
        g_drop_flagged = 1;
    else if (strcmp(action, "mark") == 0)
        g_drop_flagged = 0;
    else
        return nf_fail(err, err_len, "expected drop or mark", "action");
    return 0;
}

size_t nf_state_size(void) { return sizeof(struct psd_state); }

void nf_state_init(void *state)
{
    struct psd_state *st = state;
    for (uint32_t i = 0; i < PSD_BUCKETS; i++)
        st->heads[i] = PSD_NIL;
    st->n_used = 0;
    st->untracked = 0;
}

static uint32_t psd_bucket(uint32_t src_ip)
{
    return nf_hash_bytes(&src_ip, sizeof src_ip) & (PSD_BUCKETS - 1);
}

/* Find the node of src_ip by walking its chain; allocate one if absent. */
static struct psd_host *psd_find_or_add(struct psd_state *st, uint32_t src_ip, uint64_t now)
{
    uint32_t b = psd_bucket(src_ip);
    uint32_t idx = st->heads[b];
    struct psd_host *h;

    while (idx != PSD_NIL && idx < PSD_MAX_HOSTS) {
        h = &st->hosts[idx];
        if (h->src_ip == src_ip)
            return h;
        idx = h->next;
    }
    if (st->n_used >= PSD_MAX_HOSTS)
        return 0;
    idx = st->n_used++;
    h = &st->hosts[idx];
    memset(h, 0, sizeof *h);
    h->src_ip = src_ip;
    h->window_start_ns = now;
    h->next = st->heads[b];
    st->heads[b] = idx;
    return h;
}

static void psd_note_port(struct psd_host *h, uint16_t port)
{
    for (uint32_t i = 0; i < h->n_ports; i++)
        if (h->ports[i] == port)
            return;
    if (h->n_ports < PSD_PORT_SLOTS)
        h->ports[h->n_ports++] = port;
}

int32_t nf_process(struct nf_ctx *ctx, struct nf_packet *pkt)
{
    struct psd_state *st = ctx->state;
    struct nf_headers hdr;
    struct psd_host *host;
    uint16_t dport;

    if (nf_parse(pkt, &hdr) != 0)
        return NF_DROP;
    if (!hdr.ip4)
        return NF_PORT(0);
    if (hdr.tcp)
        dport = nf_ntohs(hdr.tcp->dport);
    else if (hdr.udp)
        dport = nf_ntohs(hdr.udp->dport);
    else
        return NF_PORT(0);

    host = psd_find_or_add(st, nf_ntohl(hdr.ip4->saddr), ctx->now_ns);
    if (!host) {
        st->untracked++;
        return NF_PORT(0);
    }
    if (ctx->now_ns - host->window_start_ns > g_window_ns) {
        host->window_start_ns = ctx->now_ns;
        host->n_ports = 0;
        host->flagged = 0;
    }
    host->last_seen_ns = ctx->now_ns;
    host->packets++;
    psd_note_port(host, dport);
    if (host->n_ports >= g_threshold)
        host->flagged = 1;
    if (host->flagged)
        return g_drop_flagged ? NF_DROP : NF_PORT(1);
    return NF_PORT(0);
}
