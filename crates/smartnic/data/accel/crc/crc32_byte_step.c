#include <stdint.h>
extern const uint32_t crc_table[256];
uint32_t crc32_update_byte(uint32_t crc, uint8_t b)
{
    return crc_table[(crc ^ b) & 0xff] ^ (crc >> 8);
}
