#include <stdint.h>
/* A table-based block-cipher-like round (T-tables indexed by bytes of
   several state words) and a table-driven string hash that indexes by the
   input byte (Buzhash-style): table lookups mixed with shifts, no CRC. */
static const uint32_t T0[256], T1[256], T2[256], T3[256];
static const uint32_t rk[40];

void t_rounds(uint32_t s[4], int rounds)
{
    for (int r = 0; r < rounds; r++) {
        uint32_t a = T0[s[0] >> 24] ^ T1[(s[1] >> 16) & 0xff] ^ T2[(s[2] >> 8) & 0xff] ^ T3[s[3] & 0xff] ^ rk[4 * r];
        uint32_t b = T0[s[1] >> 24] ^ T1[(s[2] >> 16) & 0xff] ^ T2[(s[3] >> 8) & 0xff] ^ T3[s[0] & 0xff] ^ rk[4 * r + 1];
        s[0] = a ^ (s[0] << 8);
        s[1] = b;
    }
}

uint32_t buzhash(const uint8_t *p, int n)
{
    uint32_t h = 0;
    for (int i = 0; i < n; i++)
        h = ((h << 1) | (h >> 31)) ^ T0[p[i]];
    return h;
}
