/* Fresh7 held-out set: RTKLIB 2.4.3 b34's parities and bit fields
 * (src/rtkcmn.c): NovAtel's CRC-32 (bitwise, reflected, 0xEDB88320),
 * CRC-24Q (byte-table step, MSB-first, register masked to 24 bits) and
 * CRC-16 (byte-table step, MSB-first), with their static const tables;
 * the GPS navigation word parity check (decode_word: the six parity bits
 * as parities of masked words, a (32,26) Hamming code) and the bit-field
 * reader and writer getbitu/setbitu, verbatim (extracted at bench time
 * from $NFC_CORPUS_DIR). trace() is the library's own no-op definition
 * when built without TRACE (rtkcmn.c l. 3220), copied here. */
#include <stdint.h>
#define POLYCRC32   0xEDB88320u /* CRC32 polynomial */
extern void trace   (int level, const char *format, ...) {}
//@extract rtklib/src/rtkcmn.c tbl_CRC16 tbl_CRC24Q getbitu setbitu rtk_crc32 rtk_crc24q rtk_crc16 decode_word
