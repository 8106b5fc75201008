/* Fresh2 held-out set: xz-utils 5.4.1 liblzma's slice-by-eight CRC-32
 * (check/crc32_fast.c), slice-by-four CRC-64 (check/crc64_fast.c) and the
 * generators of their tables (crc32_tablegen.c, crc64_tablegen.c),
 * verbatim (extracted at bench time from $NFC_CORPUS_DIR); the macros are
 * crc_macros.h's little-endian ones, the tables declared as there. */
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#define LZMA_API(type) type
#define UINT32_C(c) c ## U
#define UINT64_C(c) c ## ULL
#define A(x) ((x) & 0xFF)
#define B(x) (((x) >> 8) & 0xFF)
#define C(x) (((x) >> 16) & 0xFF)
#define D(x) ((x) >> 24)
#define S8(x) ((x) >> 8)
#define S32(x) ((x) >> 32)
#define A1 A
#define likely(x) (x)
#define unlikely(x) (x)
extern const uint32_t lzma_crc32_table[8][256];
extern const uint64_t lzma_crc64_table[4][256];
static uint32_t crc32_table[8][256];
static uint64_t crc64_table[4][256];
static inline uint32_t aligned_read32ne(const uint8_t *buf) { uint32_t v; memcpy(&v, buf, 4); return v; }
//@extract xz-utils/src/liblzma/check/crc32_fast.c lzma_crc32
//@extract xz-utils/src/liblzma/check/crc64_fast.c crc64_generic
//@extract xz-utils/src/liblzma/check/crc32_tablegen.c init_crc32_table
//@extract xz-utils/src/liblzma/check/crc64_tablegen.c init_crc64_table
uint64_t wrap_crc64(const uint8_t *b, size_t n, uint64_t c) { return crc64_generic(b, n, c); }
void wrap_init32(void) { init_crc32_table(); }
