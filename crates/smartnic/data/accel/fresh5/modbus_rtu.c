/* Fresh5 held-out set: libmodbus 3.1.6's RTU frame CRC (src/modbus-rtu.c:
 * crc16, the Modbus CRC-16 as two byte tables, high and low register
 * bytes, indexed by the high byte xored with the data), verbatim
 * (extracted at bench time from $NFC_CORPUS_DIR). The tables are
 * modbus-rtu.c's static data, declared here (their values do not change
 * the IR's shape). */
#include <stdint.h>
extern const uint8_t table_crc_hi[256];
extern const uint8_t table_crc_lo[256];
//@extract libmodbus/src/modbus-rtu.c crc16
/* Static functions are emitted only when called. */
uint16_t wrap_crc16(uint8_t *buffer, uint16_t buffer_length) {
    return crc16(buffer, buffer_length);
}
