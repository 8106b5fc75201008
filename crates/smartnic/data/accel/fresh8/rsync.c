/* Fresh8 held-out set: rsync 3.2.7's rolling block checksum
 * get_checksum1 (checksum.c, the non-SIMD build: two Adler-like sums, four
 * bytes at a time), verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR). Types and CHAR_OFFSET from rsync.h. */
#include <stdint.h>
typedef uint32_t uint32;
typedef int32_t int32;
typedef signed char schar;
#define CHAR_OFFSET 0
//@extract rsync/checksum.c get_checksum1
