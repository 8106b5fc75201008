/* Fresh6 held-out set: dump1090-mutability's Mode S CRC (crc.c:
 * initLookupTables fills the CRC-24 byte table bitwise, MSB-first, and the
 * single-bit error syndromes; modesChecksum is the table CRC-24 over all
 * but the last three bytes, xored with them: the message's syndrome),
 * verbatim (extracted at bench time from $NFC_CORPUS_DIR). */
#include <stdint.h>
#include <string.h>
#define assert(e) ((void)0)
#define MODES_GENERATOR_POLY 0xfff409
static uint32_t crc_table[256];
static uint32_t single_bit_syndrome[112];
uint32_t modesChecksum(uint8_t *message, int bits);
//@extract dump1090-mutability/crc.c initLookupTables modesChecksum
void wrap_init(void) { initLookupTables(); }
