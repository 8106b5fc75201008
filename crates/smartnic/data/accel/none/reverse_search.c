#include <stdint.h>
/* Exact searches from the end: the index shrinks, the key stays whole. */
struct flow {
    uint32_t src, dst;
    uint16_t sport, dport;
    int id;
};
int last_index_of(const uint32_t *v, int n, uint32_t key)
{
    for (int i = n - 1; i >= 0; i--)
        if (v[i] == key)
            return i;
    return -1;
}
int newest_flow(const struct flow *f, int n, uint32_t src, uint32_t dst)
{
    int i = n;
    while (i > 0) {
        i--;
        if (f[i].src == src && f[i].dst == dst)
            return f[i].id;
    }
    return -1;
}
