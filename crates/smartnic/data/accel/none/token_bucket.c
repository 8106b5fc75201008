#include <stdint.h>
struct bucket { uint64_t tokens, last, rate, burst; };
int tb_allow(struct bucket *b, uint64_t now, uint32_t bytes)
{
    uint64_t add = (now - b->last) * b->rate / 1000000000ull;
    b->tokens = b->tokens + add > b->burst ? b->burst : b->tokens + add;
    b->last = now;
    if (b->tokens < bytes)
        return 0;
    b->tokens -= bytes;
    return 1;
}
