#include <stdint.h>
#include <stddef.h>
uint32_t crc32c_sw(uint32_t crc, const void *buf, size_t len)
{
    const unsigned char *p = buf;
    crc = ~crc;
    while (len--) {
        crc ^= *p++;
        for (int k = 0; k < 8; k++)
            crc = crc & 1 ? (crc >> 1) ^ 0x82f63b78 : crc >> 1;
    }
    return ~crc;
}
