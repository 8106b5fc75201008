#include <stdint.h>
static uint32_t T[4][256];
void crc32_slice_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (-(int32_t)(c & 1) & 0xEDB88320u);
        T[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int s = 1; s < 4; s++)
            T[s][i] = (T[s - 1][i] >> 8) ^ T[0][T[s - 1][i] & 0xff];
}
uint32_t crc32_slice4(uint32_t crc, const uint8_t *p, uint32_t n)
{
    crc = ~crc;
    while (n >= 4) {
        crc ^= (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
        crc = T[3][crc & 0xff] ^ T[2][(crc >> 8) & 0xff] ^ T[1][(crc >> 16) & 0xff] ^ T[0][crc >> 24];
        p += 4;
        n -= 4;
    }
    while (n--)
        crc = (crc >> 8) ^ T[0][(crc ^ *p++) & 0xff];
    return ~crc;
}
