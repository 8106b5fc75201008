#include <stdint.h>
uint32_t adler32(const uint8_t *d, unsigned len)
{
    uint32_t a = 1, b = 0;
    for (unsigned i = 0; i < len; i++) {
        a = (a + d[i]) % 65521;
        b = (b + a) % 65521;
    }
    return (b << 16) | a;
}
