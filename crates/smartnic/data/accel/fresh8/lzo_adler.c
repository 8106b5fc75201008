/* Fresh8 held-out set: LZO 2.10's Adler-32 (src/lzo_util.c, unrolled 16
 * bytes at a time), verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR). The type and export macros are lzoconf.h's; the
 * constants and step macros are copied from lzo_util.c, as its own build
 * has them. */
#include <stdint.h>
#include <stddef.h>
typedef uint32_t lzo_uint32_t;
typedef size_t lzo_uint;
#define lzo_bytep unsigned char *
#define LZO_PUBLIC(r) r
#define LZO_BASE 65521u
#define LZO_NMAX 5552
#define LZO_DO1(buf,i)  s1 += buf[i]; s2 += s1
#define LZO_DO2(buf,i)  LZO_DO1(buf,i); LZO_DO1(buf,i+1)
#define LZO_DO4(buf,i)  LZO_DO2(buf,i); LZO_DO2(buf,i+2)
#define LZO_DO8(buf,i)  LZO_DO4(buf,i); LZO_DO4(buf,i+4)
#define LZO_DO16(buf,i) LZO_DO8(buf,i); LZO_DO8(buf,i+8)
//@extract lzo2/src/lzo_util.c lzo_adler32
