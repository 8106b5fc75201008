#include <stdint.h>
struct lvl { uint32_t entry[256]; };
extern uint32_t root16[65536];
extern struct lvl l2[4096], l3[4096];
int dir16_lookup(uint32_t a)
{
    uint32_t e = root16[a >> 16];
    if (!(e & 0x80000000u))
        return (int)(e & 0xffff);
    e = l2[e & 0xfff].entry[(a >> 8) & 0xff];
    if (!(e & 0x80000000u))
        return (int)(e & 0xffff);
    e = l3[e & 0xfff].entry[a & 0xff];
    return (int)(e & 0xffff);
}
