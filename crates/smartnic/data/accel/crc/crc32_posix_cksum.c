#include <stdint.h>
/* POSIX cksum's CRC-32 (MSB first, polynomial 0x04C11DB7) over the data
   and then its length, bit by bit. */
static uint32_t step(uint32_t c, uint8_t b)
{
    c ^= (uint32_t)b << 24;
    for (int k = 0; k < 8; k++)
        c = (c & 0x80000000u) ? (c << 1) ^ 0x04C11DB7u : c << 1;
    return c;
}
uint32_t posix_cksum(const uint8_t *p, unsigned n)
{
    uint32_t c = 0;
    for (unsigned i = 0; i < n; i++)
        c = step(c, p[i]);
    for (unsigned len = n; len; len >>= 8)
        c = step(c, (uint8_t)len);
    return ~c;
}
