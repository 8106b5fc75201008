#include <stdint.h>
extern const uint32_t T16[2][256];
uint32_t crc32_u16(uint32_t crc, uint16_t v)
{
    crc ^= v;
    crc = (crc >> 16) ^ T16[1][crc & 0xff] ^ T16[0][(crc >> 8) & 0xff];
    return crc;
}
