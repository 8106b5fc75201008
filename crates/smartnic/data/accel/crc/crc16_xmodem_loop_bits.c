#include <stdint.h>
unsigned short crc_xmodem(unsigned char *ptr, int count)
{
    unsigned int crc = 0;
    while (--count >= 0) {
        crc = crc ^ (unsigned int)*ptr++ << 8;
        int i = 8;
        do {
            if (crc & 0x8000)
                crc = crc << 1 ^ 0x1021;
            else
                crc = crc << 1;
        } while (--i);
    }
    return (unsigned short)(crc & 0xffff);
}
