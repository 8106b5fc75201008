/* Fresh5 held-out set: rtl_433 22.11's checks for radio sensor messages
 * (src/util.c), verbatim (extracted at bench time from $NFC_CORPUS_DIR):
 * the parameterised bitwise CRCs crc4/crc7/crc8/crc8le/crc16lsb/crc16
 * (MSB-first and reflected), the Galois LFSR digests (keyed linear hashes:
 * each set data bit xors the current key in, the key rolls through an LFSR;
 * no division of the message), a nibble-folded parity, a byte parity, a
 * byte xor, a byte sum and a nibble sum. reverse8 is crc8le's bit helper. */
#include <stdint.h>
//@extract rtl-433/src/util.c reverse8 crc4 crc7 crc8 crc8le crc16lsb crc16 lfsr_digest8 lfsr_digest8_reflect lfsr_digest16 parity8 parity_bytes xor_bytes add_bytes add_nibbles
