#include <stdint.h>
static const uint8_t t8[16] = {0x00,0x07,0x0e,0x09,0x1c,0x1b,0x12,0x15,0x38,0x3f,0x36,0x31,0x24,0x23,0x2a,0x2d};
uint8_t crc8_nibble(const uint8_t *p, unsigned n)
{
    uint8_t crc = 0;
    for (unsigned i = 0; i < n; i++) {
        crc ^= p[i];
        crc = (uint8_t)((crc << 4) ^ t8[crc >> 4]);
        crc = (uint8_t)((crc << 4) ^ t8[crc >> 4]);
    }
    return crc;
}
