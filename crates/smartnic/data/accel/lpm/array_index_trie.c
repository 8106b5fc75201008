#include <stdint.h>
struct anode { int32_t left, right; int32_t nh; };
static struct anode pool[65536];
int lpm_array_trie(uint32_t ip)
{
    int32_t cur = 0, best = -1;
    for (int b = 31; b >= 0 && cur >= 0; b--) {
        if (pool[cur].nh >= 0)
            best = pool[cur].nh;
        cur = ((ip >> b) & 1) ? pool[cur].right : pool[cur].left;
    }
    return best;
}
