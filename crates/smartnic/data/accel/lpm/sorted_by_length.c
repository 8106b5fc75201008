#include <stdint.h>
struct pfx { uint32_t net; uint32_t mask; uint32_t port; };
extern struct pfx fib[];
extern int fib_len;
uint32_t fib_lookup(uint32_t dst, uint32_t dflt)
{
    /* fib[] is sorted by decreasing prefix length: the first match is the longest. */
    for (int i = 0; i < fib_len; i++)
        if ((dst & fib[i].mask) == fib[i].net)
            return fib[i].port;
    return dflt;
}
