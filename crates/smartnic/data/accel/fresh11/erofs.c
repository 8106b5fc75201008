/* Fresh11 held-out set: erofs-utils 1.9.4: include/erofs/internal.h
 * erofs_crc32c (CRC-32C bitwise, reflected: the byte xored into the
 * register, then eight conditional-polynomial shifts — the superblock
 * checksum) and lib/rolling_hash.h's Rabin-Karp rolling hash
 * (erofs_rolling_hash_init: a polynomial hash in base 256 modulo
 * 2^32 - 1; erofs_rolling_hash_advance: one window step of it;
 * erofs_rollinghash_calc_rm: the power it removes with — arithmetic
 * modulo a number, no CRC). Verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR); the types are erofs/defs.h's. */
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
typedef uint8_t u8;
typedef uint32_t u32;
#define CRC32C_POLY_LE	0x82F63B78
//@extract erofs-utils/include/erofs/internal.h erofs_crc32c
#define PRIME_NUMBER	4294967295LL
#define RADIX		256
//@extract erofs-utils/lib/rolling_hash.h erofs_rolling_hash_init erofs_rolling_hash_advance erofs_rollinghash_calc_rm
/* All static inline: called here so that -O0 emits them. */
long long wrap_erofs(u8 *in, int len, bool back, long long h, u8 a, u8 b)
{
	return erofs_crc32c(~0, in, (size_t)len)
		+ erofs_rolling_hash_init(in, len, back)
		+ erofs_rolling_hash_advance(h, erofs_rollinghash_calc_rm(len), a, b);
}
