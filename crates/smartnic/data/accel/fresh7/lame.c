/* Fresh7 held-out set: LAME 3.100's CRCs: the MPEG header CRC-16
 * (bitstream.c: CRC_update, bitwise MSB-first with the data byte shifted
 * alongside the register, `(crc ^ value) & 0x10000`; CRC_writeheader
 * runs it over the header bytes) and the LAME tag's music CRC (VbrTag.c:
 * the reflected CRC-16 table step CRC_update_lookup over a buffer in
 * UpdateMusicCRC; the static const table crc16_lookup), verbatim
 * (extracted at bench time from $NFC_CORPUS_DIR). The encoder state is
 * reduced to the one field read (the side-info length). */
#include <stdint.h>
#define CRC16_POLYNOMIAL 0x8005
typedef struct { int sideinfo_len; } SessionConfig_t;
typedef struct lame_internal_flags { SessionConfig_t cfg; } lame_internal_flags;
//@extract lame/libmp3lame/bitstream.c CRC_update CRC_writeheader
//@extract lame/libmp3lame/VbrTag.c crc16_lookup CRC_update_lookup UpdateMusicCRC
