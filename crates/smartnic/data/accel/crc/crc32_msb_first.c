#include <stdint.h>
uint32_t crc32_mpeg2(const unsigned char *data, unsigned len)
{
    uint32_t crc = 0xffffffff;
    while (len--) {
        crc ^= (uint32_t)(*data++) << 24;
        for (int b = 0; b < 8; b++) {
            if (crc & 0x80000000)
                crc = (crc << 1) ^ 0x04C11DB7;
            else
                crc <<= 1;
        }
    }
    return crc;
}
