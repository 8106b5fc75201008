#include <stdint.h>
#include <stddef.h>
/* CRC-64/ECMA-182, not reflected: the table index is the register's top
 * byte xored with the next data byte. */
static uint64_t table64[256];
void crc64_msb_init(void)
{
    for (int i = 0; i < 256; i++) {
        uint64_t c = (uint64_t)i << 56;
        for (int b = 0; b < 8; b++)
            c = (c & 0x8000000000000000ull) ? (c << 1) ^ 0x42F0E1EBA9EA3693ull : c << 1;
        table64[i] = c;
    }
}
uint64_t crc64_msb(const void *data, size_t len)
{
    const unsigned char *d = data;
    uint64_t crc = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned idx = (unsigned)((crc >> 56) ^ d[i]) & 0xff;
        crc = table64[idx] ^ (crc << 8);
    }
    return crc;
}
