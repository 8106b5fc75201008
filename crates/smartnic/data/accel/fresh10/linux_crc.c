/* Fresh10 held-out set: Linux 6.1.4's CRC library: lib/crc4.c crc4
 * (CRC-4 over the low bits of a word, MSB first, nibble table), lib/crc7.c
 * crc7_be (CRC-7/MMC, left-aligned, byte table through an inline step),
 * lib/crc8.c crc8_populate_msb and crc8_populate_lsb (CRC-8 table fills
 * for a caller's polynomial, by xor of powers) and crc8 (the reflected
 * byte-table step over a caller's table), lib/crc-itu-t.c crc_itu_t
 * (CRC-16/ITU-T MSB first) and lib/crc-ccitt.c crc_ccitt (reflected
 * CCITT) and crc_ccitt_false (MSB first), crypto/crct10dif_common.c
 * crc_t10dif_generic (CRC-16/T10-DIF MSB first, open-coded step) and
 * lib/gen_crc64table.c's two CRC-64 table fills (reflected and MSB
 * first, bitwise). Verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR), the constant tables with them; the inline byte steps
 * are the headers' (include/linux/crc7.h, crc-itu-t.h, crc-ccitt.h). */
#include "kshim.h"
#define CRC8_TABLE_SIZE 256
//@extract linux/lib/crc4.c crc4_tab crc4
//@extract linux/lib/crc7.c crc7_be_syndrome_table
//@extract linux/include/linux/crc7.h crc7_be_byte
//@extract linux/lib/crc7.c crc7_be
//@extract linux/lib/crc8.c crc8_populate_msb crc8_populate_lsb crc8
//@extract linux/lib/crc-itu-t.c crc_itu_t_table
//@extract linux/include/linux/crc-itu-t.h crc_itu_t_byte
//@extract linux/lib/crc-itu-t.c crc_itu_t
//@extract linux/lib/crc-ccitt.c crc_ccitt_table crc_ccitt_false_table
//@extract linux/include/linux/crc-ccitt.h crc_ccitt_byte crc_ccitt_false_byte
//@extract linux/lib/crc-ccitt.c crc_ccitt crc_ccitt_false
//@extract linux/crypto/crct10dif_common.c t10_dif_crc_table crc_t10dif_generic
//@extract linux/lib/gen_crc64table.c generate_reflected_crc64_table generate_crc64_table
/* The table fills are static: called here so that -O0 emits them. */
void wrap_gen_crc64(uint64_t *t, uint64_t *r)
{
	generate_crc64_table(t, 0x42F0E1EBA9EA3693ULL);
	generate_reflected_crc64_table(r, 0x9A6C9329AC4BC9B5ULL);
}
