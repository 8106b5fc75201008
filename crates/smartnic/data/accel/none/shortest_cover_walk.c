#include <stdint.h>
#include <stddef.h>
/* The first covering node on the key's path in a tree that keeps shorter
 * prefixes above longer ones: the SHORTEST covering prefix (RTRlib's
 * trie_lookup shape), returned at the first match while descending. */
struct cnode { uint32_t prefix; uint8_t len; struct cnode *lchild, *rchild; };
struct cnode *shortest_cover(struct cnode *root, uint32_t addr, uint8_t mask_len, unsigned *level)
{
    while (root) {
        uint32_t m = root->len ? 0xffffffffu << (32 - root->len) : 0;
        if (root->len <= mask_len && (root->prefix & m) == (addr & m))
            return root;
        if (addr & (0x80000000u >> *level))
            root = root->rchild;
        else
            root = root->lchild;
        (*level)++;
    }
    return NULL;
}
