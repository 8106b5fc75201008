/* wrong_abi: declares ABI version 99, which the executor must refuse. */
#include "nf.h"

static const struct nf_info info = {99, "wrong_abi", 1};
const struct nf_info *nf_describe(void) { return &info; }
int nf_init(const struct nf_config *cfg, char *err, size_t err_len)
{
    (void)cfg;
    (void)err;
    (void)err_len;
    return 0;
}
size_t nf_state_size(void) { return 0; }
int32_t nf_process(struct nf_ctx *ctx, struct nf_packet *pkt)
{
    (void)ctx;
    (void)pkt;
    return 0;
}
