/* no_process: exports everything but nf_process; loading must fail cleanly. */
#include "nf.h"

static const struct nf_info info = {NF_ABI_VERSION, "no_process", 1};
const struct nf_info *nf_describe(void) { return &info; }
int nf_init(const struct nf_config *cfg, char *err, size_t err_len)
{
    (void)cfg;
    (void)err;
    (void)err_len;
    return 0;
}
size_t nf_state_size(void) { return 0; }
