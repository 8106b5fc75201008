/* Fresh4 held-out set: gpsd 3.22's CRC-24Q (gpsd/crc24q.c: the table
 * generator crc_init, and the table-driven crc24q_hash),
 * verbatim, and four gpsd checks that are not CRCs: GREIS's rotate-xor
 * checksum (drivers/driver_greis_checksum.c), the RTCM/GPS (32,26) Hamming
 * parity (gpsd/isgps.c: masks and a parity-of-byte table), Zodiac's
 * 16-bit sum (drivers/driver_zodiac.c) and Navcom's xor of bytes
 * (drivers/driver_navcom.c), verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR). The two tables stay external (their values are
 * data); the wrappers make the static functions appear. */
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <limits.h>
#define CRCSEED 0
#define CRCPOLY 0x1864CFBu
typedef uint32_t isgps30bits_t;
extern const unsigned int crc24q[256];
extern unsigned char parity_array[256];
//@extract gpsd/gpsd/crc24q.c crc_init crc24q_hash
//@extract gpsd/drivers/driver_greis_checksum.c greis_rotate_left greis_checksum
//@extract gpsd/gpsd/isgps.c isgps_parity
//@extract gpsd/drivers/driver_zodiac.c zodiac_checksum
//@extract gpsd/drivers/driver_navcom.c checksum
void wrap_crc_init(unsigned int table[256]) { crc_init(table); }
unsigned short wrap_zodiac(unsigned short *w, int n) { return zodiac_checksum(w, n); }
uint8_t wrap_navcom(unsigned char *buf, size_t len) { return checksum(buf, len); }
