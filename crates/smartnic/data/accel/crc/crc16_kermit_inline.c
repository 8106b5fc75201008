#include <stdint.h>
uint16_t crc16_kermit(const uint8_t *p, uint32_t n)
{
    uint16_t crc = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint8_t q = (uint8_t)(crc ^ p[i]);
        crc = (uint16_t)((crc >> 4) ^ ((q & 0x0f) * 0x1081));
        q = (uint8_t)(crc ^ (p[i] >> 4));
        crc = (uint16_t)((crc >> 4) ^ ((q & 0x0f) * 0x1081));
    }
    return crc;
}
