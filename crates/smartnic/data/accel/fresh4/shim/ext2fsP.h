/* Shim for fresh4/e2fs_dirhash.c: nothing from ext2fsP.h is used. */
