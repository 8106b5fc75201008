/* Fresh12 held-out set: gfs2-utils 3.6.1's libgfs2: gfs2_disk_hash.c
 * lgfs2_disk_hash (the directory-entry name hash, which is the reflected
 * CRC-32 byte-table step preset and inverted: a CRC used as a hash) and
 * crc32c.c __crc32c_le (reflected CRC-32C byte-table step, no preset)
 * with crc32c (dispatch: the byte-wise function or a function pointer).
 * Verbatim (extracted at bench time from $NFC_CORPUS_DIR), the constant
 * tables with them; the function pointer is the file's declaration,
 * written here. */
#include <stddef.h>
#include <stdint.h>
//@extract gfs2-utils/gfs2/libgfs2/gfs2_disk_hash.c crc_32_tab lgfs2_disk_hash
//@extract gfs2-utils/gfs2/libgfs2/crc32c.c crc32c_table
static uint32_t __crc32c_le(uint32_t crc, unsigned char const *data, size_t length);
static uint32_t (*crc_function)(uint32_t crc, unsigned char const *data, size_t length) = __crc32c_le;
//@extract gfs2-utils/gfs2/libgfs2/crc32c.c __crc32c_le crc32c
