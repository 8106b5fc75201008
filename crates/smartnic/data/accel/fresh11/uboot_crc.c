/* Fresh11 held-out set: U-Boot 2023.01's CRC library: lib/crc32c.c
 * crc32c_cal (the reflected CRC-32C byte-table step over a table the
 * caller hands in: the table is a parameter) and crc32c_init (that table
 * filled bitwise, reflected, for the caller's polynomial; its comment says
 * it was copied from Linux's crypto/crc32c.c — a lineage fresh10's kernel
 * CRCs share, not the same functions), lib/crc8.c crc8 (CRC-8, polynomial
 * 0x07, MSB first, one byte at a time through the bitwise helper _crc8 on
 * a 16-bit register) and lib/crc16-ccitt.c crc16_ccitt (eCos's CRC-16/CCITT
 * MSB-first byte-table step). Verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR), with the constant table; the few U-Boot types are
 * written here from include/linux/types.h. */
#include <stddef.h>
#include <stdint.h>
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
//@extract u-boot/lib/crc32c.c crc32c_cal crc32c_init
#define POLY	(0x1070U << 3)
//@extract u-boot/lib/crc8.c _crc8 crc8
//@extract u-boot/lib/crc16-ccitt.c crc16_tab crc16_ccitt
