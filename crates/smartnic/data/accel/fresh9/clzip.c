/* Fresh9 held-out set: clzip 1.13's CRC-32 (lzip.h): CRC32_init fills the
 * reflected table bitwise, CRC32_update_buf runs the byte-table step with
 * the register through a pointer, CRC32_update_byte is one step; verbatim
 * (extracted at bench time from $NFC_CORPUS_DIR). The table type and the
 * global table are lzip.h's and main.c's declarations. */
#include <stdint.h>
#include <stdbool.h>
typedef uint32_t CRC32[256];	/* Table of CRCs of all 8-bit messages. */
CRC32 crc32;
//@extract clzip/lzip.h CRC32_init CRC32_update_byte CRC32_update_buf
/* The functions are static inline: called here so that -O0 emits them. */
void wrap_clzip(uint32_t *crc, const uint8_t *buf, int n)
{
	CRC32_init();
	CRC32_update_buf(crc, buf, n);
	CRC32_update_byte(crc, buf[0]);
}
