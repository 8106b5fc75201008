#include <stdint.h>
uint32_t toeplitz_hash(const uint8_t *key, const uint8_t *data, unsigned n)
{
    uint32_t hash = 0;
    uint32_t v = (uint32_t)key[0] << 24 | (uint32_t)key[1] << 16 | (uint32_t)key[2] << 8 | key[3];
    for (unsigned i = 0; i < n; i++) {
        for (int b = 7; b >= 0; b--) {
            if (data[i] & (1 << b))
                hash ^= v;
            v <<= 1;
            if (key[i + 4] & (1 << b))
                v |= 1;
        }
    }
    return hash;
}
