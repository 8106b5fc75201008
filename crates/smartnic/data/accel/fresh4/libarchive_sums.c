/* Fresh4 held-out set: libarchive 3.6.2's fallback CRC-32 (archive_crc32.h,
 * table built on first use, 8-way unrolled table steps), the LHA CRC-16
 * table fill and its two-table (16 bits a step) CRC-16 and byte-sum header
 * checksum (archive_read_support_format_lha.c), and the CAB data-block
 * checksum (xor of little-endian words, archive_read_support_format_cab.c)
 * with its word decoder (archive_endian.h), verbatim (included/extracted at
 * bench time from $NFC_CORPUS_DIR). crc16tbl is lha.c's table variable;
 * the wrappers make the static functions appear. */
#include <stdint.h>
#include <stddef.h>
#define __LIBARCHIVE_BUILD 1
//@include libarchive/libarchive/archive_crc32.h
static uint16_t crc16tbl[2][256];
//@extract libarchive/libarchive/archive_endian.h archive_le32dec
//@extract libarchive/libarchive/archive_read_support_format_lha.c lha_calcsum lha_crc16_init lha_crc16
//@extract libarchive/libarchive/archive_read_support_format_cab.c cab_checksum_cfdata_4 cab_checksum_cfdata
unsigned long wrap_crc32(unsigned long crc, const void *p, size_t len) { return crc32(crc, p, len); }
unsigned char wrap_lha_calcsum(unsigned char sum, const void *pp, int offset, size_t size) { return lha_calcsum(sum, pp, offset, size); }
void wrap_lha_crc16_init(void) { lha_crc16_init(); }
uint16_t wrap_lha_crc16(uint16_t crc, const void *pp, size_t len) { return lha_crc16(crc, pp, len); }
uint32_t wrap_cab_checksum(const void *p, size_t bytes, uint32_t seed) { return cab_checksum_cfdata(p, bytes, seed); }
