/* Fresh5 held-out set: AVRDUDE 7.1's CRC-16 (src/crc16.c: crcsum, the
 * reflected CCITT table step as a macro; crcverify and crcappend, which
 * compute it over a message and compare or append it), verbatim
 * (extracted at bench time from $NFC_CORPUS_DIR; upstream tarball, the
 * mirror did not serve Debian's). The table is crc16.c's static data,
 * declared here; CRC and CRC_INIT are its macros. */
#include <stdint.h>
static const unsigned short crc_table[256];
#define CRC_INIT 0xFFFF
#define CRC(crcval,newchar) crcval = (crcval >> 8) ^ \
	crc_table[(crcval ^ newchar) & 0x00ff]
//@extract avrdude/src/crc16.c crcsum crcverify crcappend
