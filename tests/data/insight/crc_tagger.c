/*
 * crc_tagger: a small NF for `nfc insight`'s tests. It stamps a CRC-32 of
 * the first 32 bytes of each frame into the last four bytes (bitwise,
 * reflected polynomial 0xEDB88320) and counts frames; frames shorter than
 * 36 bytes are dropped.
 */
#include "nf.h"

static uint64_t frames;
static struct nf_info crc_tagger_info = {NF_ABI_VERSION, "crc_tagger", 1};

const struct nf_info *nf_describe(void) { return &crc_tagger_info; }

int nf_init(const struct nf_config *cfg, char *err, size_t err_len)
{
    (void)cfg;
    (void)err;
    (void)err_len;
    frames = 0;
    return 0;
}

size_t nf_state_size(void) { return 0; }

static uint32_t crc32_bits(const uint8_t *p, unsigned n)
{
    uint32_t crc = 0xffffffffu;
    for (unsigned i = 0; i < n; i++) {
        crc ^= p[i];
        for (int b = 0; b < 8; b++)
            crc = (crc & 1) ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
    }
    return ~crc;
}

int32_t nf_process(struct nf_ctx *ctx, struct nf_packet *pkt)
{
    uint8_t *frame = pkt->data;
    uint32_t crc;
    (void)ctx;
    if (pkt->len < 36)
        return NF_DROP;
    crc = crc32_bits(frame, 32);
    frame[pkt->len - 4] = (uint8_t)crc;
    frame[pkt->len - 3] = (uint8_t)(crc >> 8);
    frame[pkt->len - 2] = (uint8_t)(crc >> 16);
    frame[pkt->len - 1] = (uint8_t)(crc >> 24);
    frames++;
    return NF_PORT(0);
}
