#include <stdint.h>
struct crc_spec { uint32_t poly; uint32_t init; uint32_t xorout; int width; int reflect; };
uint32_t crc_compute(const struct crc_spec *s, const uint8_t *d, unsigned n)
{
    uint32_t top = 1u << (s->width - 1);
    uint32_t mask = (s->width == 32) ? 0xffffffffu : ((1u << s->width) - 1);
    uint32_t crc = s->init;
    for (unsigned i = 0; i < n; i++) {
        uint32_t b = d[i];
        if (s->reflect) {
            uint32_t r = 0;
            for (int q = 0; q < 8; q++) { r = (r << 1) | (b & 1); b >>= 1; }
            b = r;
        }
        crc ^= b << (s->width - 8);
        for (int k = 0; k < 8; k++)
            crc = (crc & top) ? (crc << 1) ^ s->poly : crc << 1;
        crc &= mask;
    }
    if (s->reflect) {
        uint32_t r = 0, v = crc;
        for (int q = 0; q < s->width; q++) { r = (r << 1) | (v & 1); v >>= 1; }
        crc = r;
    }
    return (crc ^ s->xorout) & mask;
}
