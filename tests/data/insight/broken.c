#include "nf.h"

int32_t nf_process(struct nf_ctx *ctx, struct nf_packet *pkt)
{
    (void)pkt;
    return ctx->no_such_member;
}
