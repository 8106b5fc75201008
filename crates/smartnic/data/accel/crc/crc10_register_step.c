#include <stdint.h>
/* ATM CRC-10 (x^10 + x^9 + x^5 + x^4 + x + 1), MSB first, with the table
   indexed by the register's top byte alone and the data byte xored in
   after the lookup; the table is filled bitwise. */
static uint16_t crc10_table[256];

void crc10_fill(void)
{
    for (int i = 0; i < 256; i++) {
        uint16_t acc = (uint16_t)(i << 2);
        for (int j = 0; j < 8; j++) {
            if (acc & 0x200)
                acc = (uint16_t)(((acc << 1) ^ 0x633) & 0x3ff);
            else
                acc = (uint16_t)((acc << 1) & 0x3ff);
        }
        crc10_table[i] = acc;
    }
}

uint16_t crc10_update(uint16_t acc, const uint8_t *p, int len)
{
    for (int i = 0; i < len; i++)
        acc = (uint16_t)(((acc << 8) & 0x3ff) ^ crc10_table[(acc >> 2) & 0xff] ^ p[i]);
    return acc;
}
