#include <stdint.h>
#define rot(x, k) (((x) << (k)) | ((x) >> (32 - (k))))
uint32_t jhash_3words(uint32_t a, uint32_t b, uint32_t c, uint32_t initval)
{
    a += 0xdeadbeef + initval;
    b += 0xdeadbeef + initval;
    c += 0xdeadbeef + initval;
    c ^= b; c -= rot(b, 14);
    a ^= c; a -= rot(c, 11);
    b ^= a; b -= rot(a, 25);
    c ^= b; c -= rot(b, 16);
    a ^= c; a -= rot(c, 4);
    b ^= a; b -= rot(a, 14);
    c ^= b; c -= rot(b, 24);
    return c;
}
