#include <stdint.h>
/* CRC-16/CCITT (0x1021) one byte at a time as the polynomial's xor
   equations (no table, no bit loop): the byte's contribution multiplied
   out as shifts of itself. */
uint16_t crc16_ccitt_eq(uint16_t crc, const uint8_t *p, int len)
{
    while (len-- > 0) {
        uint16_t x = (uint16_t)((crc >> 8) ^ *p++);
        x ^= x >> 4;
        crc = (uint16_t)((crc << 8) ^ (x << 12) ^ (x << 5) ^ x);
    }
    return crc;
}

/* The reflected form (CRC-16/KERMIT's per-byte equations). */
uint16_t crc16_kermit_eq(uint16_t crc, const uint8_t *p, int len)
{
    while (len-- > 0) {
        uint8_t x = (uint8_t)(crc ^ *p++);
        x ^= (uint8_t)(x << 4);
        crc = (uint16_t)((crc >> 8) ^ ((uint16_t)x << 8) ^ ((uint16_t)x << 3) ^ (x >> 4));
    }
    return crc;
}
