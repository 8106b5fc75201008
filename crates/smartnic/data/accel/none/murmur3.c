#include <stdint.h>
uint32_t murmur3_32(const uint8_t *key, uint32_t len, uint32_t seed)
{
    uint32_t h = seed, k;
    for (uint32_t i = len >> 2; i; i--) {
        k = key[0] | key[1] << 8 | key[2] << 16 | (uint32_t)key[3] << 24;
        key += 4;
        k *= 0xcc9e2d51; k = (k << 15) | (k >> 17); k *= 0x1b873593;
        h ^= k; h = (h << 13) | (h >> 19); h = h * 5 + 0xe6546b64;
    }
    k = 0;
    for (uint32_t i = len & 3; i; i--) { k <<= 8; k |= key[i - 1]; }
    k *= 0xcc9e2d51; k = (k << 15) | (k >> 17); k *= 0x1b873593; h ^= k;
    h ^= len; h ^= h >> 16; h *= 0x85ebca6b; h ^= h >> 13; h *= 0xc2b2ae35; h ^= h >> 16;
    return h;
}
