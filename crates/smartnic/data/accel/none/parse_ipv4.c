#include <stdint.h>
struct ip4 { uint8_t vihl, tos; uint16_t len, id, frag; uint8_t ttl, proto; uint16_t csum; uint32_t src, dst; };
int parse_ipv4(const uint8_t *pkt, unsigned len, struct ip4 *out)
{
    if (len < 20)
        return -1;
    out->vihl = pkt[0];
    if ((out->vihl >> 4) != 4)
        return -2;
    unsigned ihl = (out->vihl & 0xf) * 4u;
    if (ihl < 20 || ihl > len)
        return -3;
    out->tos = pkt[1];
    out->len = (uint16_t)(pkt[2] << 8 | pkt[3]);
    out->id = (uint16_t)(pkt[4] << 8 | pkt[5]);
    out->frag = (uint16_t)(pkt[6] << 8 | pkt[7]);
    out->ttl = pkt[8];
    out->proto = pkt[9];
    out->csum = (uint16_t)(pkt[10] << 8 | pkt[11]);
    out->src = (uint32_t)pkt[12] << 24 | (uint32_t)pkt[13] << 16 | (uint32_t)pkt[14] << 8 | pkt[15];
    out->dst = (uint32_t)pkt[16] << 24 | (uint32_t)pkt[17] << 16 | (uint32_t)pkt[18] << 8 | pkt[19];
    return (int)ihl;
}
