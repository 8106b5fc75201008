#include <stdint.h>
uint16_t fletcher16(const uint8_t *data, int count)
{
    uint16_t s1 = 0, s2 = 0;
    for (int i = 0; i < count; ++i) {
        s1 = (s1 + data[i]) % 255;
        s2 = (s2 + s1) % 255;
    }
    return (uint16_t)((s2 << 8) | s1);
}
