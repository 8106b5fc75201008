/* Fresh6 held-out set: libnfc 1.8.0's ISO 14443 helpers
 * (libnfc/iso14443-subr.c: the CRC_A and CRC_B of type A/B cards, the
 * CCITT CRC written as a byte-wise update of xor equations; the append
 * wrappers; the ATS historical-bytes locator, a parser; the cascade UID
 * builder), verbatim (extracted at bench time from $NFC_CORPUS_DIR). */
#include <stdint.h>
#include <stddef.h>
#include <string.h>
//@extract libnfc/libnfc/iso14443-subr.c iso14443a_crc iso14443a_crc_append iso14443b_crc iso14443b_crc_append iso14443a_locate_historical_bytes iso14443_cascade_uid
