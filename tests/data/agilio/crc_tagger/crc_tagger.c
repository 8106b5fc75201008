/*
 * crc_tagger: a test NF for the agilio plan's accelerator rewrites. It
 * computes a bitwise, reflected CRC-32 over the frame after the Ethernet
 * header and counts frames per CRC bucket; the CRC loop is what the
 * accelerator classifier should flag (the NFP has a hardware CRC unit).
 */
#include "nf.h"

static struct nf_info crc_tagger_info = {NF_ABI_VERSION, "crc_tagger", 1};
static uint64_t buckets[64];

const struct nf_info *nf_describe(void) { return &crc_tagger_info; }

int nf_init(const struct nf_config *cfg, char *err, size_t err_len)
{
    (void)cfg;
    (void)err;
    (void)err_len;
    return 0;
}

size_t nf_state_size(void) { return 0; }

static uint32_t crc32_frame(const uint8_t *p, size_t n)
{
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int b = 0; b < 8; b++)
            crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

int32_t nf_process(struct nf_ctx *ctx, struct nf_packet *pkt)
{
    (void)ctx;
    if (pkt->len < 14)
        return NF_DROP;
    buckets[crc32_frame(pkt->data + 14, pkt->len - 14) & 63]++;
    return NF_PORT(0);
}
