#include <stdint.h>
struct p4 { uint32_t addr; uint32_t mask; int len; int nh; };
int best_prefix(const struct p4 *tbl, int n, uint32_t ip)
{
    const struct p4 *best = 0;
    for (const struct p4 *p = tbl; p < tbl + n; p++)
        if (((ip ^ p->addr) & p->mask) == 0 && (!best || p->len > best->len))
            best = p;
    return best ? best->nh : -1;
}
