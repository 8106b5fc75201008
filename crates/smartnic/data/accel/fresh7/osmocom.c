/* Fresh7 held-out set: libosmocore 1.7.0's CRCs and bit helpers:
 * the generic CRC over an array of hard bits (crcXXgen.c.tpl:
 * osmo_crcXXgen_compute_bits, bitwise MSB-first, width, polynomial,
 * preset and final xor read from the code description; the template is
 * instantiated here for 32 bits as the build's crc32gen.c is, by the
 * uintXX_t typedef), CRC-16 (0xa001) and CRC-16/CCITT (0x8408) reflected
 * byte-table steps over a buffer (crc16.c, with their static const tables
 * and the header's inline byte steps), and bits.c's unpacked-to-packed
 * bit conversion and two bit reversals, verbatim (extracted at bench time
 * from $NFC_CORPUS_DIR). */
#include <stdint.h>
#include <stddef.h>
typedef uint8_t ubit_t;
typedef uint8_t pbit_t;
typedef uint32_t uintXX_t;
struct osmo_crcXXgen_code {
	int bits;
	uintXX_t poly;
	uintXX_t init;
	uintXX_t remainder;
};
enum osmo_br_mode { OSMO_BR_BITS_IN_DWORD = 31, OSMO_BR_BYTES_IN_DWORD = 24, OSMO_BR_BITS_IN_BYTE = 7, OSMO_BR_WORD_SWAP = 16 };
//@extract libosmocore/src/crcXXgen.c.tpl osmo_crcXXgen_compute_bits
//@extract libosmocore/src/crc16.c osmo_crc16_table osmo_crc16_ccitt_table
//@extract libosmocore/include/osmocom/core/crc16.h osmo_crc16_byte osmo_crc16_ccitt_byte
//@extract libosmocore/src/crc16.c osmo_crc16 osmo_crc16_ccitt
//@extract libosmocore/src/bits.c osmo_ubit2pbit osmo_bit_reversal osmo_revbytebits_32
