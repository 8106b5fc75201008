/* Shim for fresh4/e2fs_*.c: e2fsprogs' crc32c_defs.h has no include guard,
 * so each fresh4 file includes the real one once (//@include) and this
 * empty file answers the sources' own #include. */
