/* Fresh11 held-out set: OWFS 3.2p4's module/owlib/src/c/ow_crc.c, the
 * Dallas/Maxim 1-Wire CRCs (from PDKit): CRC8compute (the reflected CRC-8
 * byte-table step, small width) and CRC16compute (the reflected CRC-16 of
 * the 1-Wire bus computed through the parity of each nibble of register
 * xor data — a 16-entry parity table — then two shifted xors: the CRC's
 * xor equations, no byte table). Verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR), with the constant tables; BYTE and UINT are ow.h's. */
#include <stddef.h>
#include <stdint.h>
typedef unsigned char BYTE;
typedef unsigned int UINT;
//@extract owfs/module/owlib/src/c/ow_crc.c crc8_table CRC8compute crc16_table CRC16compute
