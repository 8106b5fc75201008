/* Fresh9 held-out set: Redis 7.0.15's CRCs: crc16.c's crc16 (CRC-16/XMODEM
 * 0x1021 MSB-first byte-table step, with its table), crc64.c's _crc64
 * (pycrc's bit-by-bit CRC-64/Jones: message bits LSB first into an
 * MSB-first register, the register reflected at the end) and its
 * crc_reflect (a bit reversal), crcspeed.c's crcspeed64little_init (fills
 * the slicing-by-8 tables from a CRC function pointer and table steps) and
 * crcspeed64little (slicing-by-8 reflected CRC-64 over a buffer, tables a
 * parameter); verbatim (extracted at bench time from $NFC_CORPUS_DIR). The
 * polynomial and the function pointer type are crc64.c's and crcspeed.h's. */
#include <stdint.h>
#include <stddef.h>
#define POLY UINT64_C(0xad93d23594c935a9)
typedef uint64_t (*crcfn64)(uint64_t, const void *, const uint64_t);
//@extract redis/src/crc16.c crc16tab crc16
//@extract redis/src/crc64.c crc_reflect _crc64
//@extract redis/src/crcspeed.c crcspeed64little_init crcspeed64little
