/* Fresh4 held-out set: e2fsprogs 1.47.0's lib/ext2fs/gen_crc32ctable.c,
 * the build-time generator of the slicing tables (bitwise CRC-32C LE and
 * CRC-32 BE of each entry by the xor-doubling trick, then the slice rows
 * by table steps), the whole file verbatim (included at bench time from
 * $NFC_CORPUS_DIR, crc32c_defs.h first). */
//@include e2fsprogs/lib/ext2fs/crc32c_defs.h
//@include e2fsprogs/lib/ext2fs/gen_crc32ctable.c
