/* Fresh4 held-out set: e2fsprogs 1.47.0's lib/ext2fs/crc16.c (table-driven
 * CRC-16) and lib/ext2fs/crc32c.c (slicing-by-8 CRC-32C little-endian and
 * CRC-32 big-endian with their wrappers), the whole files verbatim
 * (included at bench time from $NFC_CORPUS_DIR; crc32c_defs.h included
 * first, the build-generated tables and the ext2fs headers are shims). */
//@include e2fsprogs/lib/ext2fs/crc32c_defs.h
//@include e2fsprogs/lib/ext2fs/crc16.c
//@include e2fsprogs/lib/ext2fs/crc32c.c
