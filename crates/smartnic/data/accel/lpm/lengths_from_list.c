#include <stdint.h>
/* Longest match over the prefix lengths actually configured: a list of
   lengths kept longest first, each tried in turn with the address masked
   to it and an exact lookup in an external table. */
struct route;
struct route *exact_find(const void *table, uint32_t key, int len);
static uint8_t configured_len[33];
static int n_configured;

struct route *lookup_configured(const void *table, uint32_t addr)
{
    for (int i = 0; i < n_configured; i++) {
        int len = configured_len[i];
        uint32_t key = len ? addr & (0xffffffffu << (32 - len)) : 0;
        struct route *r = exact_find(table, key, len);
        if (r)
            return r;
    }
    return 0;
}
