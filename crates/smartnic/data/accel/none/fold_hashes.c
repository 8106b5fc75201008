#include <stdint.h>
/* Folding and shift-xor hashes: a word folded into a byte, a 64-bit
   xorshift* step, and a Gray-code decode (prefix xor). */
uint8_t fold_to_byte(uint32_t p)
{
    return (uint8_t)(p ^ (p >> 8) ^ (p >> 16) ^ (p >> 24));
}

uint64_t xorshift64star(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545F4914F6CDD1DULL;
}

uint32_t gray_decode(uint32_t g)
{
    g ^= g >> 16;
    g ^= g >> 8;
    g ^= g >> 4;
    g ^= g >> 2;
    g ^= g >> 1;
    return g;
}
