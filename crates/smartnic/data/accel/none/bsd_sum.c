#include <stdint.h>
/* BSD sum: rotate-right-by-one checksum over a byte stream (sum(1)); a
   hard negative for CRC (a shift by one in a loop, no polynomial). */
uint16_t bsd_sum(const uint8_t *p, unsigned n)
{
    uint16_t s = 0;
    for (unsigned i = 0; i < n; i++) {
        s = (uint16_t)((s >> 1) + ((s & 1) << 15));
        s = (uint16_t)(s + p[i]);
    }
    return s;
}
