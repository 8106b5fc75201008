#include <stdint.h>
#include <stddef.h>
struct n6 { struct n6 *kid[2]; int nh; };
int lpm6_lookup(const struct n6 *root, const uint8_t addr[16])
{
    const struct n6 *n = root;
    int best = -1;
    for (int i = 0; i < 128 && n; i++) {
        if (n->nh >= 0)
            best = n->nh;
        int bit = (addr[i >> 3] >> (7 - (i & 7))) & 1;
        n = n->kid[bit];
    }
    if (n && n->nh >= 0)
        best = n->nh;
    return best;
}
