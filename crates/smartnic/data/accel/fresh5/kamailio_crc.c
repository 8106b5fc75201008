/* Fresh5 held-out set: Kamailio 5.6.3's CRCs (src/core/crc.c:
 * crcitt_string_ex and crcitt_string_array, the reflected CCITT table CRC
 * over a string and over an array of strings printed as hex;
 * crc32file, CRC-32, CCITT and CRC-16 table steps over a file; crc32_uint,
 * the table CRC-32 four bytes a round) and its string hashes
 * (src/core/hashes.h: core_hash and core_case_hash, big-endian 32-bit words
 * added as v ^ (v >> 3), then a shift-add finish), verbatim (extracted at
 * bench time from $NFC_CORPUS_DIR). The macros are crc.c's and hashes.h's
 * definitions; the tables, int2reverse_hex and the logging stay external. */
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
typedef struct _str { char *s; int len; } str;
#define unlikely(x) (x)
#define LM_CRIT(...) ((void)0)
#define CRC16_LEN 4
#define CRC32_LEN 8
#define OK 0
#define ERROR (-1)
extern unsigned long int crc_32_tab[];
extern unsigned short int ccitt_tab[];
extern unsigned short int crc_16_tab[];
int int2reverse_hex(char **c, int *size, unsigned int nr);
int getc(FILE *f);
int ferror(FILE *f);
void perror(const char *s);
FILE *fopen(const char *path, const char *mode);
int fclose(FILE *f);
#ifndef EOF
#define EOF (-1)
#endif
#define UPDC32(ch, crc) (crc_32_tab[((crc) ^ (ch)) & 0xff] ^ ((crc) >> 8))
#define UPDCIT(ch, crc) (ccitt_tab[((crc) ^ (ch)) & 0xff] ^ ((crc) >> 8))
#define UPDC16(ch, crc) (crc_16_tab[((crc) ^ (ch)) & 0xff] ^ ((crc) >> 8))
#define ch_h_inc h+=v^(v>>3)
#define ch_icase(_c) (((_c)>='A'&&(_c)<='Z')?((_c)|0x20):(_c))
//@extract kamailio/src/core/crc.c crcitt_string_ex crcitt_string crcitt_string_array crc32file crc32_uint
//@extract kamailio/src/core/hashes.h core_hash core_case_hash
/* Static inline functions are emitted only when called. */
unsigned int wrap_core_hash(const str *s1, const str *s2, unsigned int size) {
	return core_hash(s1, s2, size);
}
unsigned int wrap_core_case_hash(str *s1, str *s2, unsigned int size) {
	return core_case_hash(s1, s2, size);
}
