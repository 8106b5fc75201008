/* Fresh9 held-out set: Redis 7.0.15's intset.c intsetSearch (binary search
 * of a sorted integer array for an exact value, with the insert position
 * when absent: an exact search, none) and its element readers
 * _intsetGetEncoded and _intsetGet; verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR). The struct and encodings are intset.h's and intset.c's;
 * the target is little-endian, so endianconv.h's byte reversals are the
 * identity. */
#include <stdint.h>
#include <string.h>
typedef struct intset {
    uint32_t encoding;
    uint32_t length;
    int8_t contents[];
} intset;
#define INTSET_ENC_INT16 (sizeof(int16_t))
#define INTSET_ENC_INT32 (sizeof(int32_t))
#define INTSET_ENC_INT64 (sizeof(int64_t))
#define memrev16ifbe(p) ((void)(0))
#define memrev32ifbe(p) ((void)(0))
#define memrev64ifbe(p) ((void)(0))
#define intrev32ifbe(v) (v)
//@extract redis/src/intset.c _intsetGetEncoded _intsetGet intsetSearch
/* intsetSearch is static: called here so that -O0 emits it. */
uint8_t wrap_intset_search(intset *is, int64_t value, uint32_t *pos)
{
	return intsetSearch(is, value, pos);
}
