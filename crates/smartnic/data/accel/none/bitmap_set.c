#include <stdint.h>
void bitmap_set_range(uint64_t *bm, unsigned from, unsigned to)
{
    for (unsigned i = from; i < to; i++)
        bm[i >> 6] |= 1ull << (i & 63);
}
