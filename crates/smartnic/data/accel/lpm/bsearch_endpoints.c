#include <stdint.h>
/* LPM as a search over the sorted endpoints of the prefixes' address
   ranges: each endpoint carries the next hop of the most specific prefix
   covering [ep[i], ep[i+1]). */
struct endpoint { uint32_t addr; uint16_t nh; };
static struct endpoint eps[8192];
static unsigned neps;
int lpm_endpoints(uint32_t addr)
{
    unsigned lo = 0, hi = neps;
    if (neps == 0 || addr < eps[0].addr)
        return -1;
    while (hi - lo > 1) {
        unsigned mid = lo + ((hi - lo) >> 1);
        if (eps[mid].addr <= addr)
            lo = mid;
        else
            hi = mid;
    }
    return eps[lo].nh == 0xffff ? -1 : eps[lo].nh;
}
