#include <stdint.h>
/* DIR-24-8 with 32-bit entries (valid and extended flags in the top bits,
 * next hop or tbl8 group below), looked up for a burst of addresses. */
#define ENT_VALID 0x80000000u
#define ENT_EXT   0x40000000u
static uint32_t t24[1 << 24];
static uint32_t t8[1024 * 256];
void dir_lookup_burst(const uint32_t *ips, uint32_t *hops, unsigned n, uint32_t miss)
{
    for (unsigned i = 0; i < n; i++) {
        uint32_t ip = ips[i];
        const uint32_t *slot = &t24[ip >> 8];
        uint32_t ent = *slot;
        if ((ent & (ENT_VALID | ENT_EXT)) == (ENT_VALID | ENT_EXT)) {
            uint32_t grp = ent & 0x00ffffffu;
            slot = &t8[grp * 256 + (uint8_t)ip];
            ent = *slot;
        }
        hops[i] = (ent & ENT_VALID) ? (ent & 0x00ffffffu) : miss;
    }
}
