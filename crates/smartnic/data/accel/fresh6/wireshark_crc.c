/* Fresh6 held-out set: Wireshark 4.0.17's CRC and checksum helpers
 * (wsutil/), verbatim (extracted at bench time from $NFC_CORPUS_DIR):
 * USB CRC-5 as an xor of per-bit syndromes (crc5.c), a CRC-6 table that
 * holds the whole step (crc6.c), CRC-7/CRC-11/CRC-16 pycrc table steps
 * (crc7.c, crc11.c, crc16-plain.c), the CRC-8 table step (crc8.c), the
 * reflected and unreflected CRC-16 table steps (crc16.c), CRC-32/MPEG-2
 * (crc32.c); negatives: Adler-32 (adler32.c), pycrc's bit reflection
 * (crc16-plain.c), XTEA decryption (xtea.c). The tables stay external. */
#include <stdint.h>
#include <stddef.h>
typedef uint8_t guint8;
typedef uint16_t guint16;
typedef uint32_t guint32;
typedef uint64_t guint64;
typedef unsigned int guint;
typedef unsigned char guchar;
typedef uint16_t crc16_plain_t;
#define GUINT32_FROM_BE(x) __builtin_bswap32(x)
#define GUINT32_TO_BE(x) __builtin_bswap32(x)
#define GUINT32_FROM_LE(x) (x)
#define GUINT32_TO_LE(x) (x)
#define BASE 65521
#include <string.h>
#define pntoh32(p) ((guint32)((const guint8 *)(p))[0] << 24 | (guint32)((const guint8 *)(p))[1] << 16 | (guint32)((const guint8 *)(p))[2] << 8 | (guint32)((const guint8 *)(p))[3])
extern const guint8 crc6_table[256];
extern const guint8 crc_table[256];
extern const guint16 crc11_table_307_noreflect_noxor[256];
extern const crc16_plain_t crc_table_reflected[256];
extern const guint32 crc32_mpeg2_table[256];
//@extract wireshark/wsutil/crc5.c crc5_usb_bits crc5_usb_11bit_input crc5_usb_19bit_input
//@extract wireshark/wsutil/crc6.c crc6_0X6F
//@extract wireshark/wsutil/crc7.c crc7update
//@extract wireshark/wsutil/crc8.c crc8_precompiled
//@extract wireshark/wsutil/crc11.c crc11_307_noreflect_noxor
//@extract wireshark/wsutil/crc16-plain.c crc16_plain_reflect crc16_plain_update
//@extract wireshark/wsutil/crc16.c crc16_unreflected crc16_reflected
//@extract wireshark/wsutil/crc32.c crc32_mpeg2_seed
//@extract wireshark/wsutil/adler32.c update_adler32
//@extract wireshark/wsutil/xtea.c decrypt_xtea_ecb
guint8 wrap_crc8(const guint8 *b, guint32 n, guint8 s, const guint8 *t) { return crc8_precompiled(b, n, s, t); }
guint16 wrap_crc16u(const guint8 *b, guint n, guint16 s, const guint *t) { return crc16_unreflected(b, n, s, t); }
guint16 wrap_crc16r(const guint8 *b, guint n, guint16 s, const guint *t) { return crc16_reflected(b, n, s, t); }
