/* Fresh9 held-out set: ARJ 3.10.22's CRCs: crc32.c's build_crc32_table
 * (the reflected CRC-32 table filled bitwise into a global),
 * crc32_for_block (the byte-table step on the global register crc32term;
 * the 8086 assembly branch is compiled out) and recovery.c's
 * crc16_for_block (the augmented, non-direct MSB-first CRC-16 table method
 * `tab[r >> 8] ^ (r << 8 | byte)` with crc16tab.c's CCITT table, final xor
 * 0xAAAA); verbatim (extracted at bench time from $NFC_CORPUS_DIR). The
 * macros and globals are crc32.c's. */
#include <limits.h>
#define CRCPOLY          0xEDB88320L    /* CRC32 polynomial */
#define UPDATE_CRC(r, c) crc32tab[((unsigned char)(r)^(unsigned char)(c))&0xFF]^(r>>CHAR_BIT)
unsigned long crc32term;
unsigned long crc32tab[256];
//@extract arj/crc32.c build_crc32_table crc32_for_block
//@extract arj/crc16tab.c crc16tab
//@extract arj/recovery.c crc16_for_block
/* crc16_for_block is static: called here so that -O0 emits it. */
unsigned short wrap_crc16_for_block(char *data, int len)
{
	return crc16_for_block(data, len);
}
