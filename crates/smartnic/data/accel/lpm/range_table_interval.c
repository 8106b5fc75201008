#include <stdint.h>
/* Prefixes as disjoint intervals [start, end] sorted by start, searched by
   bisection with explicit bounds (a routing table flattened for lookup). */
struct interval { uint32_t start, end; uint32_t nexthop; };
static struct interval itab[65536];
static uint32_t nint;
uint32_t interval_route(uint32_t dst, uint32_t dflt)
{
    uint32_t l = 0, r = nint;
    while (l < r) {
        uint32_t m = (l + r) / 2;
        if (itab[m].end < dst)
            l = m + 1;
        else
            r = m;
    }
    if (l < nint && itab[l].start <= dst && dst <= itab[l].end)
        return itab[l].nexthop;
    return dflt;
}
