/* Fresh5 held-out set: BlueZ 5.66's Bluetooth LE CRC-24 (monitor/crc.c:
 * crc24_calculate, the reflected bitwise CRC-24 with the polynomial xored
 * in after setting the top bit; crc24_reverse, the same LFSR run backwards
 * to recover the preset from a CRC; crc24_bit_reverse, a bit helper),
 * verbatim (extracted at bench time from $NFC_CORPUS_DIR). */
#include <stdint.h>
//@extract bluez/monitor/crc.c crc24_bit_reverse crc24_calculate crc24_reverse
