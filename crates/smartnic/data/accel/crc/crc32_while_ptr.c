#include <stdint.h>
extern const uint32_t crc32_tab[256];
uint32_t crc32_buf(const uint8_t *s, const uint8_t *e, uint32_t crc)
{
    crc = crc ^ ~0U;
    while (s < e)
        crc = crc32_tab[(crc ^ *s++) & 0xFF] ^ (crc >> 8);
    return crc ^ ~0U;
}
