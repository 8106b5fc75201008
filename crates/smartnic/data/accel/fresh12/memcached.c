/* Fresh12 held-out set: memcached 1.6.45's crc32c.c (Mark Adler's
 * software CRC-32C): crc32c_init_sw_little (the byte table by eight
 * unrolled reflected bitwise steps, then the slicing tables from it),
 * crc32c_sw_little (reflected byte-table steps to alignment, slicing by
 * eight, byte steps for the tail), crc32c_init_sw_big and crc32c_sw_big
 * (the same for big-endian words, the tables byte-swapped), crc32c_shift
 * (applies a zeros operator's four tables to a register) and
 * gf2_matrix_times (a GF(2) matrix times a vector: the rows the vector's
 * bits select, xored); and murmur3_hash.c MurmurHash3_x86_32 (Murmur3:
 * multiply, rotate, add per block, fmix32 at the end) with its helpers.
 * Verbatim (extracted at bench time from $NFC_CORPUS_DIR); POLY is the
 * file's, the tables and once-flags its static declarations, written
 * here; pthread_once is declared, swap is the builtin the file picks. */
#include <stddef.h>
#include <stdint.h>
#define POLY 0x82f63b78
#define swap __builtin_bswap64
typedef int pthread_once_t;
#define PTHREAD_ONCE_INIT 0
int pthread_once(pthread_once_t *, void (*)(void));
static pthread_once_t crc32c_once_little = PTHREAD_ONCE_INIT;
static uint32_t crc32c_table_little[8][256];
static pthread_once_t crc32c_once_big = PTHREAD_ONCE_INIT;
static uint32_t crc32c_table_big_byte[256];
static uint64_t crc32c_table_big[8][256];
//@extract memcached/crc32c.c gf2_matrix_times crc32c_shift crc32c_init_sw_little crc32c_sw_little crc32c_init_sw_big crc32c_sw_big
/* The extraction takes the functions, not the file's macros: FORCE_INLINE
 * is defined here, plain inline as fresh7 does for lz4 (the file's
 * always_inline would fold getblock32 and fmix32 into their caller before
 * -O0 emits them, and their labels would name no function). */
#define FORCE_INLINE inline
#define ROTL32(x,y) rotl32(x,y)
//@extract memcached/murmur3_hash.c rotl32 getblock32 fmix32 MurmurHash3_x86_32
/* The static functions are called here so that -O0 emits them. */
uint32_t wrap_memcached(uint32_t *mat, uint32_t v, uint32_t zeros[][256])
{
	return gf2_matrix_times(mat, v) ^ crc32c_shift(zeros, v);
}
