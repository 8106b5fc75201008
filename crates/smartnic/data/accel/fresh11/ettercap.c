/* Fresh11 held-out set: Ettercap 0.8.4.1's src/ec_checksum.c: sum (the
 * Internet checksum's one's-complement sum of 16-bit words, folded:
 * none), L3_checksum (its complement, the IP header checksum: a wrapper)
 * and CRC_checksum (the reflected CRC-32 byte-table step over a buffer,
 * the table a static constant of the function, the register seeded by the
 * caller: used for 802.11 frame check sequences). Verbatim (extracted at
 * bench time from $NFC_CORPUS_DIR); the integer types are ec.h's,
 * OS_SIZEOF_P is the target's (riscv32: 4). */
#include <stddef.h>
#include <stdint.h>
typedef uint8_t u_int8;
typedef uint16_t u_int16;
typedef uint32_t u_int32;
typedef uint64_t u_int64;
typedef unsigned char u_char;
#define OS_SIZEOF_P 4
//@extract ettercap/src/ec_checksum.c sum L3_checksum CRC_checksum
