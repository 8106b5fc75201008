#include <stdint.h>
static uint16_t tbl24[1 << 24];
static uint16_t tbl8[256 * 256];
int dir24_lookup(uint32_t ip)
{
    uint16_t e = tbl24[ip >> 8];
    if (e & 0x8000)
        e = tbl8[((uint32_t)(e & 0x7fff) << 8) | (ip & 0xff)];
    return (e & 0x4000) ? (int)(e & 0x3fff) : -1;
}
