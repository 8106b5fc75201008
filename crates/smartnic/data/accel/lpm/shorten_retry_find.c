#include <stdint.h>
/* Longest match by exact lookups of ever shorter prefixes: one exact
 * table per length behind an external find, tried from the longest
 * length down (IPv4 and IPv6). */
struct route;
struct rtable;
struct route *exact_find4(struct rtable *t, uint32_t prefix, int len);
struct route *exact_find6(struct rtable *t, const uint8_t *prefix, int len);
struct route *lookup4_longest(struct rtable *t, uint32_t addr)
{
    struct route *r;
    int len;
    for (len = 32; len >= 0; len--) {
        r = exact_find4(t, len ? addr & (0xffffffffu << (32 - len)) : 0, len);
        if (r != 0)
            return r;
    }
    return 0;
}
struct route *lookup6_longest(struct rtable *t, const uint8_t addr[16])
{
    uint8_t key[16];
    for (int i = 0; i < 16; i++)
        key[i] = addr[i];
    int len = 128;
    for (;;) {
        struct route *r = exact_find6(t, key, len);
        if (r)
            return r;
        if (len == 0)
            break;
        len -= 1;
        key[len >> 3] &= (uint8_t)~(0x80 >> (len & 7));
    }
    return 0;
}
