#include <stdint.h>
static uint32_t table[256];
static int ready;
static void make_table(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int j = 0; j < 8; j++)
            c = (c & 1) ? (c >> 1) ^ 0xEDB88320u : c >> 1;
        table[i] = c;
    }
    ready = 1;
}
uint32_t crc32_table(uint32_t crc, const uint8_t *buf, uint32_t len)
{
    if (!ready)
        make_table();
    crc = ~crc;
    for (uint32_t i = 0; i < len; i++)
        crc = table[(crc ^ buf[i]) & 0xff] ^ (crc >> 8);
    return ~crc;
}
