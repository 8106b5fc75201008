#include <stdint.h>
uint32_t gray_decode(uint32_t g)
{
    for (uint32_t m = g >> 1; m; m >>= 1)
        g ^= m;
    return g;
}
