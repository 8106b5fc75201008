#include <stdint.h>
#define P1 0x9E3779B185EBCA87ULL
#define P2 0xC2B2AE3D27D4EB4FULL
#define P4 0x85EBCA77C2B2AE63ULL
#define ROTL64(x, r) (((x) << (r)) | ((x) >> (64 - (r))))
uint64_t xxh64_words(const uint64_t *w, unsigned n, uint64_t seed)
{
    uint64_t acc = seed + P1 + P2;
    for (unsigned i = 0; i < n; i++) {
        uint64_t k = w[i] * P2;
        k = ROTL64(k, 31);
        k *= P1;
        acc ^= k;
        acc = ROTL64(acc, 27) * P1 + P4;
    }
    acc ^= acc >> 33;
    acc *= P2;
    acc ^= acc >> 29;
    return acc;
}
