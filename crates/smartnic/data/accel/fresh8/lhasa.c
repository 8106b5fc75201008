/* Fresh8 held-out set: lhasa 0.3.1's CRC-16 (lib/crc16.c: reflected
 * 0xA001 byte-table step, the register read and written through a
 * pointer), with its table, verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR). */
#include <stdint.h>
#include <stddef.h>
//@extract lhasa/lib/crc16.c crc16_table lha_crc16_buf
