#include <stdint.h>
#include <stddef.h>
/* A radix walk that stacks every node holding a prefix on the key's path,
 * then pops them deepest first and returns the first that covers the key:
 * the longest match, remembered as a stack instead of a best-so-far. */
struct rnode { uint32_t bit; uint32_t key; uint32_t plen; int has; void *data; struct rnode *l, *r; };
void *radix_best_stack(struct rnode *head, uint32_t addr, uint32_t bitlen)
{
    struct rnode *stack[33];
    struct rnode *n = head;
    int cnt = 0;
    while (n && n->bit < bitlen) {
        if (n->has)
            stack[cnt++] = n;
        n = (addr & (0x80000000u >> n->bit)) ? n->r : n->l;
    }
    if (n && n->has)
        stack[cnt++] = n;
    while (--cnt >= 0) {
        n = stack[cnt];
        uint32_t m = n->plen ? 0xffffffffu << (32 - n->plen) : 0;
        if ((addr & m) == (n->key & m) && n->plen <= bitlen)
            return n->data;
    }
    return NULL;
}
