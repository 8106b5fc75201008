#include <stdint.h>
uint32_t crc32b(const char *message)
{
    int i = 0, j;
    uint32_t byte, crc = 0xFFFFFFFF, mask;
    while (message[i] != 0) {
        byte = (unsigned char)message[i];
        crc = crc ^ byte;
        for (j = 7; j >= 0; j--) {
            mask = -(crc & 1);
            crc = (crc >> 1) ^ (0xEDB88320 & mask);
        }
        i = i + 1;
    }
    return ~crc;
}
