#include <stdint.h>
#include <stddef.h>
/* A recursive exact Patricia search: compare the node's whole key and
 * length, else descend by the key's bit; returns only an exact hit. */
struct enode { uint32_t key; uint32_t len; uint32_t bit; void *data; struct enode *child[2]; };
void *patricia_exact_r(const struct enode *n, uint32_t key, uint32_t len)
{
    if (n == NULL)
        return NULL;
    if (n->len == len && n->key == key)
        return n->data;
    if (n->bit >= 32)
        return NULL;
    return patricia_exact_r(n->child[(key >> (31 - n->bit)) & 1], key, len);
}
