#include <stdint.h>
/* A prefix object shortened in place: drop the last bit, clear it in the
 * address and look the shorter prefix up again until a route exists. */
struct pfx4 {
    uint32_t addr;
    uint8_t plen;
};
struct fib_entry;
struct fib;
struct fib_entry *fib_exact(struct fib *f, const struct pfx4 *p);
struct fib_entry *fib_longest(struct fib *f, struct pfx4 *p)
{
    struct fib_entry *e = fib_exact(f, p);
    while (e == 0 && p->plen > 0) {
        p->plen--;
        p->addr &= ~(1u << (31 - p->plen));
        e = fib_exact(f, p);
    }
    return e;
}
