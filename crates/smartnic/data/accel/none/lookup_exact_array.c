#include <stdint.h>
struct ent { uint32_t key; int val; };
int exact_lookup(const struct ent *t, int n, uint32_t key)
{
    for (int i = 0; i < n; i++)
        if (t[i].key == key)
            return t[i].val;
    return -1;
}
