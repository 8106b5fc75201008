#include <stdint.h>
#include <stddef.h>
/* CRC-64/XZ style: reflected ECMA-182 polynomial, table built bitwise,
 * one byte per table step on a 64-bit register. */
static uint64_t crc64_tab[256];
void crc64_make_table(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint64_t r = i;
        for (int k = 0; k < 8; k++) {
            if (r & 1)
                r = (r >> 1) ^ 0xC96C5795D7870F42ull;
            else
                r >>= 1;
        }
        crc64_tab[i] = r;
    }
}
uint64_t crc64_update(uint64_t crc, const uint8_t *p, size_t n)
{
    crc = ~crc;
    while (n != 0) {
        crc = crc64_tab[(uint8_t)crc ^ *p] ^ (crc >> 8);
        p++;
        n--;
    }
    return ~crc;
}
