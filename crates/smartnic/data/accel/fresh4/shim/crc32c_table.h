/* Shim for fresh4/e2fs_crc.c: the tables e2fsprogs generates at build time
 * (gen_crc32ctable), external here (their values are data). */
extern const uint32_t crc32ctable_le[8][256];
extern const uint32_t crc32table_be[8][256];
