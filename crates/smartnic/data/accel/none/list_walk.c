#include <stddef.h>
struct flow { unsigned src, dst; unsigned short sp, dp; struct flow *next; unsigned long pkts; };
struct flow *flow_find(struct flow **buckets, unsigned nb, unsigned src, unsigned dst, unsigned short sp, unsigned short dp)
{
    struct flow *f = buckets[(src ^ dst ^ sp ^ dp) % nb];
    for (; f; f = f->next)
        if (f->src == src && f->dst == dst && f->sp == sp && f->dp == dp)
            return f;
    return NULL;
}
