#include <stdint.h>
static uint16_t tab[256];
static void init_tab(void)
{
    for (unsigned i = 0; i < 256; i++) {
        uint16_t c = (uint16_t)i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? (uint16_t)((c >> 1) ^ 0xA001) : (uint16_t)(c >> 1);
        tab[i] = c;
    }
}
uint16_t crc16_arc(const uint8_t *p, unsigned len)
{
    uint16_t crc = 0;
    if (!tab[1])
        init_tab();
    while (len--)
        crc = (uint16_t)((crc >> 8) ^ tab[(crc ^ *p++) & 0xff]);
    return crc;
}
