#include <stdint.h>
uint16_t ip_checksum(const uint8_t *hdr, unsigned n)
{
    uint32_t acc = 0;
    for (unsigned i = 0; i + 1 < n; i += 2)
        acc += ((uint32_t)hdr[i] << 8) | hdr[i + 1];
    if (n & 1)
        acc += (uint32_t)hdr[n - 1] << 8;
    acc = (acc >> 16) + (acc & 0xffff);
    acc += acc >> 16;
    return (uint16_t)(~acc & 0xffff);
}
