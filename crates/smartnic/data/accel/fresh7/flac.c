/* Fresh7 held-out set: FLAC 1.4.2's CRCs (src/libFLAC/crc.c: the CRC-8
 * table step that holds the whole step, crc = table[crc ^ byte]; the
 * CRC-16 (0x8005, MSB-first) slicing-by-8 over bytes, over 32-bit and
 * over 64-bit words; the static const tables) and the MD5 block transform
 * (md5.c), verbatim (extracted at bench time from $NFC_CORPUS_DIR). */
#include <stdint.h>
typedef uint8_t FLAC__uint8;
typedef uint8_t FLAC__byte;
typedef uint16_t FLAC__uint16;
typedef uint32_t FLAC__uint32;
typedef uint64_t FLAC__uint64;
#define F1(x, y, z) (z ^ (x & (y ^ z)))
#define F2(x, y, z) F1(z, x, y)
#define F3(x, y, z) (x ^ y ^ z)
#define F4(x, y, z) (y ^ (x | ~z))
#define MD5STEP(f,w,x,y,z,in,s) \
	 (w += f(x,y,z) + in, w = (w<<s | w>>(32-s)) + x)
//@extract flac/src/libFLAC/crc.c FLAC__crc8_table FLAC__crc16_table FLAC__crc8 FLAC__crc16 FLAC__crc16_update_words32 FLAC__crc16_update_words64
//@extract flac/src/libFLAC/md5.c FLAC__MD5Transform
void wrap_md5(FLAC__uint32 buf[4], FLAC__uint32 const in[16]) { FLAC__MD5Transform(buf, in); }
