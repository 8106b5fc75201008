#include <stdint.h>
#include <stddef.h>
struct tnode { struct tnode *child[2]; int nexthop; };
int trie_lookup(const struct tnode *root, uint32_t addr)
{
    int best = -1;
    const struct tnode *n = root;
    for (int depth = 0; n != NULL && depth <= 32; depth++) {
        if (n->nexthop >= 0)
            best = n->nexthop;
        if (depth == 32)
            break;
        n = n->child[(addr >> (31 - depth)) & 1];
    }
    return best;
}
