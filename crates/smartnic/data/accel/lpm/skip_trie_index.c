#include <stdint.h>
/* A path-compressed binary trie in an array: nodes hold a skip length and
   the bits they skip; children are array indices. */
struct pnode { uint32_t bits; uint8_t pos, skip; int16_t nh; int32_t child[2]; };
static struct pnode pnodes[16384];
int lpm_skip_trie(uint32_t addr)
{
    int best = -1;
    int32_t i = 0;
    while (i >= 0) {
        const struct pnode *n = &pnodes[i];
        if (n->skip) {
            uint32_t m = ~0u << (32 - n->skip);
            if (((addr << n->pos) & m) != n->bits)
                break;
        }
        if (n->nh >= 0)
            best = n->nh;
        if (n->pos + n->skip >= 32)
            break;
        i = n->child[(addr >> (31 - n->pos - n->skip)) & 1];
    }
    return best;
}
