/* Fresh9 held-out set: Dire Wolf 1.6 (APRS/AX.25 modem): fcs_calc.c's
 * AX.25 FCS (CRC-16/X.25 reflected byte-table step, preset and final xor
 * 0xffff) and crc16 (the same step with the register seeded by the
 * caller), with their table, and fx25_init.c's fx25_tag_find_match (the
 * first FX.25 correlation tag within a Hamming distance of the received
 * one: a first-match search by popcount, not a CRC nor a prefix match);
 * verbatim (extracted at bench time from $NFC_CORPUS_DIR). The tag table
 * and its constants are fx25.h's and fx25_init.c's declarations; fx25.h is
 * included whole for fx25_encode.c's encode_rs_char (Phil Karn's
 * Reed-Solomon encoder: parity symbols by GF(2^8) log/antilog tables, a
 * linear code over GF(256), not a CRC). */
#include <stdint.h>
#include <string.h>
#define CTAG_MIN 0x01
#define CTAG_MAX 0x0B
#define CLOSE_ENOUGH 8
struct correlation_tag_s {
	uint64_t value;
	int n_block_radio;
	int k_data_radio;
	int n_block_rs;
	int k_data_rs;
	int itab;
};
//@extract direwolf/src/fx25_init.c tags
//@include direwolf/src/fx25.h
//@extract direwolf/src/fcs_calc.c ccitt_table fcs_calc crc16
//@extract direwolf/src/fx25_init.c fx25_tag_find_match
//@extract direwolf/src/fx25_encode.c ENCODE_RS
