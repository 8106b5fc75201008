#include <stdint.h>
/* CRC-16/DNP, reflected, table built on first use. */
static uint16_t dnp_table[256];
static int dnp_ready;
uint16_t crc16_dnp(const uint8_t *p, unsigned n)
{
    if (!dnp_ready) {
        for (unsigned i = 0; i < 256; i++) {
            uint16_t r = (uint16_t)i;
            for (int k = 0; k < 8; k++)
                r = (r & 1) ? (uint16_t)((r >> 1) ^ 0xA6BCu) : (uint16_t)(r >> 1);
            dnp_table[i] = r;
        }
        dnp_ready = 1;
    }
    uint16_t crc = 0;
    while (n--)
        crc = (uint16_t)((crc >> 8) ^ dnp_table[(crc ^ *p++) & 0xff]);
    return (uint16_t)~crc;
}
