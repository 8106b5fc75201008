/* Fresh7 held-out set: libmad 0.15.1b's MPEG audio CRC check word
 * (bit.c: mad_bit_crc, CRC-16 0x8005 MSB-first by byte-table steps over
 * 32-bit reads, then one bit at a time for the rest; the static const
 * table crc_table) and the bit reader mad_bit_read it calls, verbatim
 * (extracted at bench time from $NFC_CORPUS_DIR). */
#include <limits.h>
struct mad_bitptr {
  unsigned char const *byte;
  unsigned short cache;
  unsigned short left;
};
# define CRC_POLY  0x8005
//@extract libmad/bit.c crc_table mad_bit_read mad_bit_crc
