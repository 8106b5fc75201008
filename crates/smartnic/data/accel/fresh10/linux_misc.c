/* Fresh10 held-out set: Linux 6.1.4's non-CRC look-alikes: lib/random32.c
 * prandom_u32_state (a combined Tausworthe generator: four shift/xor
 * recurrences on the state, no message — a GF(2)-linear PRNG step, none,
 * hard case), lib/checksum.c
 * do_csum (the Internet checksum, aligned 32-bit adds with end-around
 * carry) with from32to16 and ip_fast_csum, lib/xxhash.c xxh32 (xxHash32)
 * with xxh32_round, lib/bsearch.c bsearch (exact binary search through a
 * comparison callback). Verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR); the state struct is include/linux/prandom.h's, the
 * xxHash constants and rotate xxhash.c's, get_unaligned_le32 written
 * here as a macro (asm-generic/unaligned.h). */
#include "kshim.h"
struct rnd_state { __u32 s1, s2, s3, s4; };
#define __always_inline
typedef int (*cmp_func_t)(const void *a, const void *b);
#define get_unaligned_le32(p) (*(const uint32_t *)(p))
#define xxh_rotl32(x, r) ((x << r) | (x >> (32 - r)))
static const uint32_t PRIME32_1 = 2654435761U;
static const uint32_t PRIME32_2 = 2246822519U;
static const uint32_t PRIME32_3 = 3266489917U;
static const uint32_t PRIME32_4 =  668265263U;
static const uint32_t PRIME32_5 =  374761393U;
//@extract linux/lib/random32.c prandom_u32_state
//@extract linux/lib/checksum.c from32to16 do_csum ip_fast_csum
//@extract linux/lib/xxhash.c xxh32_round xxh32
//@extract linux/include/linux/bsearch.h __inline_bsearch
//@extract linux/lib/bsearch.c bsearch
