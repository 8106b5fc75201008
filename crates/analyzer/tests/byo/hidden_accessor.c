/* A user's NF whose key comes from a helper compiled elsewhere (only its
 * prototype is visible): the table is per-flow, but which header fields
 * make the key, the code here does not say. */
#include "nf.h"

#define SLOTS 8192

struct seen_state {
    uint64_t last_seen[SLOTS];
};

/* defined in another translation unit */
extern uint32_t user_flow_hash(const struct nf_packet *pkt);

size_t nf_state_size(void) { return sizeof(struct seen_state); }

void nf_state_init(void *state) { memset(state, 0, sizeof(struct seen_state)); }

int32_t nf_process(struct nf_ctx *ctx, struct nf_packet *pkt)
{
    struct seen_state *st = ctx->state;
    uint32_t h = user_flow_hash(pkt) % SLOTS;
    if (st->last_seen[h] && ctx->now_ns - st->last_seen[h] < 1000)
        return NF_DROP;
    st->last_seen[h] = ctx->now_ns;
    return NF_PORT(0);
}
