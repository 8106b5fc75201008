#include <stdint.h>
/* Retry loops that are no lookups: a bounded number of attempts and an
 * exponential back-off; the call never sees the shrinking counter. */
struct pool;
void *pool_take(struct pool *p);
int try_lock(volatile int *l);
void spin(uint32_t cycles);
void *take_retry(struct pool *p, int attempts)
{
    while (attempts-- > 0) {
        void *obj = pool_take(p);
        if (obj != 0)
            return obj;
    }
    return 0;
}
int lock_backoff(volatile int *l)
{
    for (uint32_t delay = 1u << 12; delay != 0; delay >>= 1) {
        if (try_lock(l))
            return 1;
        spin(delay);
    }
    return 0;
}
