/* A user's NF: per-source packet counts in a fixed array, the source read
 * by a helper that fills an out-parameter. Sources over a limit are dropped. */
#include "nf.h"

#define SLOTS 4096

struct src_state {
    uint32_t hits[SLOTS];
};

static uint32_t limit = 1000;

size_t nf_state_size(void) { return sizeof(struct src_state); }

void nf_state_init(void *state) { memset(state, 0, sizeof(struct src_state)); }

static int packet_source(const struct nf_packet *pkt, uint32_t *out)
{
    struct nf_headers h;
    if (nf_parse(pkt, &h) != 0 || !h.ip4)
        return -1;
    *out = nf_ntohl(h.ip4->saddr);
    return 0;
}

int32_t nf_process(struct nf_ctx *ctx, struct nf_packet *pkt)
{
    struct src_state *st = ctx->state;
    uint32_t src;
    uint32_t slot;
    if (packet_source(pkt, &src) != 0)
        return NF_PORT(0);
    slot = nf_hash_bytes(&src, sizeof src) % SLOTS;
    st->hits[slot]++;
    if (st->hits[slot] > limit)
        return NF_DROP;
    return NF_PORT(0);
}
