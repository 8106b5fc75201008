#include <stdint.h>
uint16_t csum32(const uint32_t *w, int n, uint32_t seed)
{
    uint64_t s = seed;
    for (int i = 0; i < n; i++)
        s += w[i];
    while (s >> 16)
        s = (s & 0xffff) + (s >> 16);
    return (uint16_t)~s;
}
