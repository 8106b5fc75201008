#include <stdint.h>
uint8_t crc8_maxim(const uint8_t *p, int n)
{
    uint8_t crc = 0;
    while (n-- > 0) {
        uint8_t in = *p++;
        for (int i = 0; i < 8; i++) {
            uint8_t mix = (crc ^ in) & 0x01;
            crc >>= 1;
            if (mix)
                crc ^= 0x8C;
            in >>= 1;
        }
    }
    return crc;
}
