#include <stdint.h>
/* Longest prefix first: for each length from 32 down, mask the address and
   probe a direct-mapped table of that length's prefixes. */
struct pentry { uint32_t prefix; uint8_t valid; uint8_t nh; };
static struct pentry by_len[33][256];
int lpm_by_length(uint32_t addr)
{
    for (int len = 32; len >= 0; len--) {
        uint32_t mask = len ? 0xffffffffu << (32 - len) : 0;
        uint32_t p = addr & mask;
        const struct pentry *e = &by_len[len][(p ^ (p >> 8) ^ (p >> 16) ^ (p >> 24)) & 255];
        if (e->valid && e->prefix == p)
            return e->nh;
    }
    return -1;
}
