/* Fresh8 held-out set: fio 3.33's software checksums (crc/): CRC-7 whose
 * table holds the whole step (crc7.h's inline crc7_byte:
 * table[(crc << 1) ^ data]), CRC-16 0x8005 reflected byte-table step
 * (crc16.h's inline crc16_byte), the POSIX cksum CRC-32 MSB-first table
 * step (crc32.c), CRC-32C reflected table step (crc32c.c, crc32c_sw) and
 * CRC-64 reflected table step (crc64.c), with their constant tables,
 * verbatim (extracted at bench time from $NFC_CORPUS_DIR). */
#include <stdint.h>
//@extract fio/crc/crc7.c crc7_syndrome_table
//@extract fio/crc/crc7.h crc7_byte
//@extract fio/crc/crc7.c fio_crc7
//@extract fio/crc/crc16.c crc16_table
//@extract fio/crc/crc16.h crc16_byte
//@extract fio/crc/crc16.c fio_crc16
//@extract fio/crc/crc32.c crctab fio_crc32
//@extract fio/crc/crc32c.c crc32c_table crc32c_sw
//@extract fio/crc/crc64.c crctab64 fio_crc64
