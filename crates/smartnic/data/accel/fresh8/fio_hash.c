/* Fresh8 held-out set: fio 3.33's non-CRC digests: the 64-bit FNV over
 * words (crc/fnv.c), MurmurHash3 x86_32 (crc/murmur3.c, with its static
 * rotl32/fmix32/murmur3_tail) and the population count hweight32
 * (lib/hweight.c), verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR). */
#include <stdint.h>
#define FNV_PRIME	0x100000001b3ULL
#define fio_fallthrough __attribute__((__fallthrough__))
//@extract fio/crc/fnv.c fnv
//@extract fio/crc/murmur3.c rotl32 fmix32 murmur3_tail murmurhash3
//@extract fio/lib/hweight.c hweight32
