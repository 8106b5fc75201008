#include <stdint.h>
/* Binary search on prefix lengths (Waldvogel et al.): one hash table per
   length, markers guide the search towards longer prefixes. */
struct lentry { uint32_t prefix; int16_t nh; uint8_t used, marker; };
static struct lentry tables[33][1024];
int lpm_len_search(uint32_t addr)
{
    int lo = 1, hi = 32, best = -1;
    while (lo <= hi) {
        int len = (lo + hi) >> 1;
        uint32_t mask = ~0u << (32 - len);
        uint32_t key = addr & mask;
        unsigned slot = (key * 2654435761u) >> 22;
        struct lentry *e = 0;
        for (unsigned probe = 0; probe < 8; probe++) {
            struct lentry *c = &tables[len][(slot + probe) & 1023];
            if (!c->used)
                break;
            if (c->prefix == key) {
                e = c;
                break;
            }
        }
        if (e) {
            if (e->nh >= 0)
                best = e->nh;
            lo = len + 1;
        } else {
            hi = len - 1;
        }
    }
    return best;
}
