/* Fresh3 held-out set: BusyBox 1.35.0 libbb/crc32.c (CRC-32 table fill,
 * big- or little-endian, and the two table-driven block updates, with its
 * table-allocating wrappers) and libbb/inet_cksum.c (Internet checksum),
 * verbatim (extracted at bench time from $NFC_CORPUS_DIR). FAST_FUNC and
 * BB_LITTLE_ENDIAN as libbb.h defines them on a little-endian target. */
#include <stdint.h>
#include <stddef.h>
#define FAST_FUNC
#define BB_LITTLE_ENDIAN 1
void *xmalloc(size_t size);
uint32_t *global_crc32_table;
//@extract busybox/libbb/crc32.c crc32_filltable crc32_new_table_le global_crc32_new_table_le crc32_block_endian1 crc32_block_endian0
//@extract busybox/libbb/inet_cksum.c inet_cksum
