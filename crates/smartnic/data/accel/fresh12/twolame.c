/* Fresh12 held-out set: twolame 0.4.0's libtwolame/crc.c: crc_update (the
 * MPEG audio CRC-16, polynomial 0x8005, MSB first, over up to eight bits
 * of one value: the bitwise step) and twolame_crc_writeheader (the frame's
 * error-protection CRC over two header bytes and the protected bits,
 * preset to all ones). Verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR); the polynomial is common.h's. */
#include <stddef.h>
#include <stdint.h>
#define CRC16_POLYNOMIAL 0x8005
//@extract twolame/libtwolame/crc.c crc_update twolame_crc_writeheader
