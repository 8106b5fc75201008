#include <stdint.h>
uint8_t crc5_usb(uint16_t data, int nbits)
{
    uint8_t crc = 0x1f;
    for (int i = 0; i < nbits; i++) {
        uint8_t in = (data >> i) & 1;
        uint8_t msb = (crc >> 4) & 1;
        crc = (uint8_t)((crc << 1) & 0x1f);
        if (in ^ msb)
            crc ^= 0x05;
    }
    return crc ^ 0x1f;
}
