/* Fresh7 held-out set: LZ4 1.9.4's bundled xxHash32 (lib/xxhash.c: the
 * four-lane round, the avalanche, the tail and XXH32_endian_align, the
 * body XXH32 runs), verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR). The primes and the rotate/endianness macros are
 * xxhash.c's, copied; the extractor takes xxhash.c's first XXH_read32
 * (the direct-access variant of the three #if branches: the same value
 * on this host). */
#include <stddef.h>
#include <string.h>
#include <assert.h>
typedef unsigned char      BYTE;
typedef unsigned short     U16;
typedef unsigned int       U32;
#define FORCE_INLINE static inline
#define XXH_rotl32(x,r) ((x << r) | (x >> (32 - r)))
#define XXH_swap32 __builtin_bswap32
typedef enum { XXH_bigEndian=0, XXH_littleEndian=1 } XXH_endianess;
typedef enum { XXH_aligned, XXH_unaligned } XXH_alignment;
static const U32 PRIME32_1 = 2654435761U;
static const U32 PRIME32_2 = 2246822519U;
static const U32 PRIME32_3 = 3266489917U;
static const U32 PRIME32_4 =  668265263U;
static const U32 PRIME32_5 =  374761393U;
#define XXH_get32bits(p) XXH_readLE32_align(p, endian, align)
//@extract lz4/lib/xxhash.c XXH_read32 XXH_readLE32_align XXH32_round XXH32_avalanche XXH32_finalize XXH32_endian_align
unsigned int wrap_xxh32(const void* input, size_t len, unsigned int seed) { return XXH32_endian_align(input, len, seed, XXH_littleEndian, XXH_unaligned); }
