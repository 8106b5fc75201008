#include <stdint.h>
extern const uint32_t crc32c_t[4][256];
uint32_t crc32c_word(uint32_t data, uint32_t crc)
{
    crc ^= data;
    return crc32c_t[3][crc & 0xff] ^ crc32c_t[2][(crc >> 8) & 0xff] ^
           crc32c_t[1][(crc >> 16) & 0xff] ^ crc32c_t[0][crc >> 24];
}
