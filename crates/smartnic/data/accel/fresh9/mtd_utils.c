/* Fresh9 held-out set: mtd-utils 2.1.5's software CRCs: lib/libcrc32.c's
 * mtd_crc32 (CRC-32 reflected byte-table step, register a parameter, its
 * constant table) and mkfs.ubifs' crc16 (the kernel's CRC-16 0x8005
 * reflected byte-table step through the inline crc16_byte of crc16.h),
 * verbatim (extracted at bench time from $NFC_CORPUS_DIR). */
#include <stdint.h>
#include <stddef.h>
//@extract mtd-utils/lib/libcrc32.c crc32_table mtd_crc32
//@extract mtd-utils/ubifs-utils/mkfs.ubifs/crc16.c crc16_table
//@extract mtd-utils/ubifs-utils/mkfs.ubifs/crc16.h crc16_byte
//@extract mtd-utils/ubifs-utils/mkfs.ubifs/crc16.c crc16
