#include <stdint.h>
#include <stddef.h>
struct pnode { uint32_t key; uint8_t bit; uint8_t plen; int16_t nh; struct pnode *l, *r; };
int patricia_lookup(struct pnode *t, uint32_t addr)
{
    int best = -1;
    while (t) {
        uint32_t pm = t->plen ? 0xffffffffu << (32 - t->plen) : 0;
        uint32_t bm = t->bit ? 0xffffffffu << (32 - t->bit) : 0;
        if (t->nh >= 0 && (addr & pm) == (t->key & pm))
            best = t->nh;
        else if ((addr & bm) != (t->key & bm))
            break;
        if (t->bit >= 32)
            break;
        t = (addr & (0x80000000u >> t->bit)) ? t->r : t->l;
    }
    return best;
}
