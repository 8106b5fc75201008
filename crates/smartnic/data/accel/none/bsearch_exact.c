#include <stdint.h>
/* Exact-match lookup in a sorted key array (a hard negative for LPM: a
   binary search without prefixes). */
static uint32_t keys[4096];
static uint16_t vals[4096];
static int nkeys;
int exact_bsearch(uint32_t key)
{
    int lo = 0, hi = nkeys - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (keys[mid] == key)
            return vals[mid];
        if (keys[mid] < key)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}
