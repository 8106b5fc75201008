/* Fresh12 held-out set: stm32flash 0.7's stm32.c stm32_sw_crc: the STM32
 * CRC unit's CRC-32 (polynomial 0x04c11db7, MSB first, bitwise) over
 * 32-bit little-endian words assembled from the buffer. Verbatim
 * (extracted at bench time from $NFC_CORPUS_DIR); the constants are the
 * file's. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#define CRCPOLY_BE	0x04c11db7
#define CRC_MSBMASK	0x80000000
//@extract stm32flash/stm32.c stm32_sw_crc
