#include <stdint.h>
#include <stddef.h>
struct mnode { struct mnode *next[16]; int16_t nh[16]; };
int mtrie_lookup(const struct mnode *n, uint32_t a)
{
    int best = -1;
    for (int level = 0; level < 8 && n; level++) {
        unsigned idx = (a >> (28 - 4 * level)) & 0xf;
        if (n->nh[idx] >= 0)
            best = n->nh[idx];
        n = n->next[idx];
    }
    return best;
}
