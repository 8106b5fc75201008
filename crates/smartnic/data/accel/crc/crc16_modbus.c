#include <stdint.h>
uint16_t crc16_modbus(const uint8_t *buf, uint16_t len)
{
    uint16_t crc = 0xFFFF;
    uint16_t pos = 0;
    while (pos < len) {
        crc ^= buf[pos++];
        int i = 8;
        while (i-- > 0) {
            if ((crc & 0x0001) != 0) {
                crc >>= 1;
                crc ^= 0xA001;
            } else {
                crc >>= 1;
            }
        }
    }
    return crc;
}
