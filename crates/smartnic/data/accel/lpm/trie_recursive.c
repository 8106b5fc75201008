#include <stdint.h>
#include <stddef.h>
typedef struct node { struct node *zero, *one; int value; int has_value; } node_t;
int walk(const node_t *n, uint32_t key, int bit, int best)
{
    if (!n)
        return best;
    if (n->has_value)
        best = n->value;
    if (bit < 0)
        return best;
    return walk(((key >> bit) & 1) ? n->one : n->zero, key, bit - 1, best);
}
