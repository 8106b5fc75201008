/* Fresh11 held-out set: Aircrack-ng 1.7's lib/crypto/crypto.c: calc_crc
 * (the 802.11 ICV/FCS CRC-32: reflected byte-table step, register preset to
 * all ones and inverted at the end) and calc_crc_plain (the same step with
 * neither, used for bit-flipping the CRC of an encrypted frame), with
 * check_crc_buf and add_crc32_plain, the wrappers that compare or append
 * the result; the table is include/aircrack-ng/crypto/crctable.h's.
 * Verbatim (extracted at bench time from $NFC_CORPUS_DIR); REQUIRE is
 * defs.h's release form (no check). */
#include <stddef.h>
#include <stdint.h>
#define REQUIRE(c)
//@extract aircrack-ng/include/aircrack-ng/crypto/crctable.h crc_tbl
//@extract aircrack-ng/lib/crypto/crypto.c calc_crc calc_crc_plain check_crc_buf add_crc32_plain
