/* Fresh2 held-out set: xz-utils 5.4.1 liblzma's size-optimised CRC-32 and
 * CRC-64 (check/crc32_small.c, crc64_small.c), verbatim (extracted at bench
 * time from $NFC_CORPUS_DIR); the tables are declared here as in those
 * files. The wrappers make the static functions appear. */
#include <stdint.h>
#include <stddef.h>
#define HAVE_FUNC_ATTRIBUTE_CONSTRUCTOR 1
#define LZMA_API(type) type
uint32_t lzma_crc32_table[1][256];
static uint64_t crc64_table[256];
//@extract xz-utils/src/liblzma/check/crc32_small.c crc32_init lzma_crc32
//@extract xz-utils/src/liblzma/check/crc64_small.c crc64_init lzma_crc64
void wrap_init32(void) { crc32_init(); }
void wrap_init64(void) { crc64_init(); }
