#include <stdint.h>
uint32_t mix_hash(uint32_t h, const uint8_t *k, int n)
{
    for (int i = 0; i < n; i++) {
        h ^= k[i];
        h *= 0x01000193;
        h ^= h >> 15;
    }
    return h;
}
