#include <stdint.h>
struct range { uint32_t lo, hi; int nh; };
static struct range ranges[4096];
static int nranges;
int range_lookup(uint32_t a)
{
    int lo = 0, hi = nranges - 1, ans = -1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (ranges[mid].lo <= a) {
            if (a <= ranges[mid].hi)
                ans = ranges[mid].nh;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return ans;
}
