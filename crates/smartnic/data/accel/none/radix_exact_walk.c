#include <stdint.h>
#include <stddef.h>
/* An exact radix lookup (Quagga's route_node_lookup shape): descend while
 * the node's prefix covers the key, and return only the node whose length
 * equals the key's; any shorter match on the way is not remembered. */
struct xnode { uint32_t key; uint8_t plen; void *info; struct xnode *link[2]; };
void *radix_exact(struct xnode *n, uint32_t key, uint8_t plen)
{
    while (n && n->plen <= plen) {
        uint32_t m = n->plen ? 0xffffffffu << (32 - n->plen) : 0;
        if ((key & m) != (n->key & m))
            break;
        if (n->plen == plen)
            return n->info ? n->info : NULL;
        n = n->link[(key >> (31 - n->plen)) & 1];
    }
    return NULL;
}
