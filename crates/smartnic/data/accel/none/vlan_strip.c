#include <stdint.h>
#include <string.h>
int vlan_strip(uint8_t *pkt, int len)
{
    if (len < 18 || pkt[12] != 0x81 || pkt[13] != 0x00)
        return len;
    memmove(pkt + 4, pkt, 12);
    return len - 4;
}
