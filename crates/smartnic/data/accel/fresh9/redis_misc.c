/* Fresh9 held-out set: Redis 7.0.15's hyperloglog.c MurmurHash64A (64-bit
 * MurmurHash2, unaligned little-endian reads), mt19937-64.c
 * genrand64_int64 (64-bit Mersenne Twister: regenerates its state with
 * twisted xor/shift steps and tempers one word — a GF(2)-linear generator
 * with no message: none) with init_genrand64, and geohash.c's
 * interleave64/deinterleave64 (Morton bit interleaving by masked shifts);
 * verbatim (extracted at bench time from $NFC_CORPUS_DIR). The constants
 * and state are mt19937-64.c's; the target is little-endian. */
#include <stdint.h>
#include <string.h>
#define BYTE_ORDER 1234
#define LITTLE_ENDIAN 1234
#define REDIS_NO_SANITIZE(s)
#define NN 312
#define MM 156
#define MATRIX_A 0xB5026F5AA96619E9ULL
#define UM 0xFFFFFFFF80000000ULL /* Most significant 33 bits */
#define LM 0x7FFFFFFFULL /* Least significant 31 bits */
static unsigned long long mt[NN];
static int mti=NN+1;
//@extract redis/src/hyperloglog.c MurmurHash64A
//@extract redis/src/mt19937-64.c init_genrand64 genrand64_int64
//@extract redis/src/geohash.c interleave64 deinterleave64
/* The geohash functions are static inline: called here so that -O0 emits them. */
uint64_t wrap_interleave(uint32_t x, uint32_t y)
{
	return deinterleave64(interleave64(x, y));
}
