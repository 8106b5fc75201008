/* A user's NF kept outside nfc's tree: one token bucket for all traffic
 * (an aggregate policer). Its state is not keyed by any packet field and it
 * decides the verdict, so two instances would each admit the full rate. */
#include "nf.h"

struct bucket_state {
    uint64_t credit;
    uint64_t last_ns;
    uint64_t passed;
};

static uint64_t rate_Bps = 1000000;

size_t nf_state_size(void) { return sizeof(struct bucket_state); }

void nf_state_init(void *state)
{
    struct bucket_state *st = state;
    st->credit = rate_Bps;
    st->last_ns = 0;
    st->passed = 0;
}

int32_t nf_process(struct nf_ctx *ctx, struct nf_packet *pkt)
{
    struct bucket_state *st = ctx->state;
    uint64_t elapsed = ctx->now_ns - st->last_ns;
    st->credit += elapsed * rate_Bps / 1000000000ull;
    if (st->credit > rate_Bps)
        st->credit = rate_Bps;
    st->last_ns = ctx->now_ns;
    if (st->credit < pkt->len)
        return NF_DROP;
    st->credit -= pkt->len;
    st->passed++;
    return NF_PORT(0);
}
