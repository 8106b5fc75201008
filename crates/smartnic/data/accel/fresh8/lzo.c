/* Fresh8 held-out set: LZO 2.10's CRC-32 (src/lzo_crc.c: zlib's reflected
 * table step, unrolled 16 bytes at a time, then byte by byte), with its
 * table, verbatim (extracted at bench time from $NFC_CORPUS_DIR). The
 * type and export macros are lzoconf.h's; the step macros are copied from
 * lzo_crc.c (the `#if 1` branch), as its own build has them. */
#include <stdint.h>
#include <stddef.h>
typedef uint32_t lzo_uint32_t;
typedef size_t lzo_uint;
#define lzo_bytep unsigned char *
#define LZO_PUBLIC(r) r
#define LZO_UINT32_C(c) c##U
#define LZO_DO1(buf,i) \
    crc = table[((unsigned)crc ^ buf[i]) & 0xff] ^ (crc >> 8)
#define LZO_DO2(buf,i)  LZO_DO1(buf,i); LZO_DO1(buf,i+1)
#define LZO_DO4(buf,i)  LZO_DO2(buf,i); LZO_DO2(buf,i+2)
#define LZO_DO8(buf,i)  LZO_DO4(buf,i); LZO_DO4(buf,i+4)
#define LZO_DO16(buf,i) LZO_DO8(buf,i); LZO_DO8(buf,i+8)
//@extract lzo2/src/lzo_crc.c lzo_crc32_table lzo_crc32
