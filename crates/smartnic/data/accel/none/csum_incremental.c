#include <stdint.h>
uint16_t csum_update16(uint16_t check, uint16_t oldv, uint16_t newv)
{
    uint32_t s = (uint16_t)~check + (uint16_t)~oldv + newv;
    s = (s & 0xffff) + (s >> 16);
    s = (s & 0xffff) + (s >> 16);
    return (uint16_t)~s;
}
