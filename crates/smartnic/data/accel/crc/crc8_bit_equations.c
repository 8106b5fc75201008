#include <stdint.h>
/* CRC-8 (x^8 + x^2 + x + 1) over one data byte written as the parallel
   equations a hardware generator prints: each new CRC bit is the xor of
   data and old-CRC bits, split into bit arrays first. */
uint8_t crc8_parallel(uint8_t data, uint8_t crc)
{
    uint8_t d[8], c[8], n[8];
    for (int i = 0; i < 8; i++) {
        d[i] = (uint8_t)((data >> i) & 1);
        c[i] = (uint8_t)((crc >> i) & 1);
    }
    n[0] = d[7] ^ d[6] ^ d[0] ^ c[0] ^ c[6] ^ c[7];
    n[1] = d[6] ^ d[1] ^ d[0] ^ c[0] ^ c[1] ^ c[6];
    n[2] = d[6] ^ d[2] ^ d[1] ^ d[0] ^ c[0] ^ c[1] ^ c[2] ^ c[6];
    n[3] = d[7] ^ d[3] ^ d[2] ^ d[1] ^ c[1] ^ c[2] ^ c[3] ^ c[7];
    n[4] = d[4] ^ d[3] ^ d[2] ^ c[2] ^ c[3] ^ c[4];
    n[5] = d[5] ^ d[4] ^ d[3] ^ c[3] ^ c[4] ^ c[5];
    n[6] = d[6] ^ d[5] ^ d[4] ^ c[4] ^ c[5] ^ c[6];
    n[7] = d[7] ^ d[6] ^ d[5] ^ c[5] ^ c[6] ^ c[7];
    uint8_t r = 0;
    for (int i = 0; i < 8; i++)
        r |= (uint8_t)(n[i] << i);
    return r;
}
