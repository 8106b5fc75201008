#include <stdint.h>
static uint16_t crc_tab[256];
void crc16_init(void)
{
    for (int i = 0; i < 256; i++) {
        uint16_t r = (uint16_t)(i << 8);
        for (int j = 0; j < 8; j++)
            r = (r & 0x8000) ? (uint16_t)((r << 1) ^ 0x8005) : (uint16_t)(r << 1);
        crc_tab[i] = r;
    }
}
uint16_t crc16_buypass(const uint8_t *p, unsigned n)
{
    uint16_t crc = 0;
    for (unsigned i = 0; i < n; i++)
        crc = (uint16_t)((crc << 8) ^ crc_tab[((crc >> 8) ^ p[i]) & 0xff]);
    return crc;
}
