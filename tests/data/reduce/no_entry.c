/* An NF whose per-packet entry is misspelled: it compiles against nf.h, but
 * the object exports no nf_process (nor nf_describe), so the reducer refuses
 * it as not following the ABI. */
#include "nf.h"

int nf_init(const struct nf_config *cfg, char *err, size_t err_len)
{
    (void)cfg;
    (void)err;
    (void)err_len;
    return 0;
}

int nf_proces(struct nf_ctx *ctx, struct nf_packet *pkt)
{
    (void)ctx;
    (void)pkt;
    return 0;
}
