#include <stdint.h>
/* IPv6 longest match over a first 16-bit level and 8-bit groups: each
 * extended entry names the group the next address byte indexes. */
struct ent6 {
    uint32_t next;       /* next hop, or group number when ext is set */
    uint8_t valid, ext;
};
static struct ent6 root16[1 << 16];
static struct ent6 groups[4096][256];
int lpm6_levels(const uint8_t addr[16], uint32_t *hop)
{
    const struct ent6 *e = &root16[(addr[0] << 8) | addr[1]];
    int byte = 2;
    while (e->valid && e->ext && byte < 16) {
        e = &groups[e->next][addr[byte]];
        byte++;
    }
    if (!e->valid || e->ext)
        return -1;
    *hop = e->next;
    return 0;
}
