/* Shim for fresh4/e2fs_crc.c: lib/ext2fs/crc16.h's type and prototype. */
typedef unsigned int crc16_t;
extern crc16_t ext2fs_crc16(crc16_t crc, const void *buffer, unsigned int len);
