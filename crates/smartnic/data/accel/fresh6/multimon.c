/* Fresh6 held-out set: multimon-ng 1.3.1's checks (hdlc.c:
 * check_crc_ccitt, the reflected CCITT table CRC of an AX.25 frame
 * compared with the good residue; pocsag.c: even_parity, a parity fold,
 * and pocsag_syndrome, the BCH(31,21) syndrome of a codeword by long
 * division by the generator polynomial), verbatim (extracted at bench
 * time from $NFC_CORPUS_DIR). The table and printing stay external. */
#include <stdint.h>
#define BCH_POLY 03551
#define BCH_N 31
#define BCH_K 21
extern const unsigned short crc_ccitt_table[];
void verbprintf(int verb_level, const char *fmt, ...);
//@extract multimon-ng/hdlc.c check_crc_ccitt
//@extract multimon-ng/pocsag.c even_parity pocsag_syndrome
int wrap_check_crc_ccitt(const unsigned char *b, int n) { return check_crc_ccitt(b, n); }
unsigned int wrap_pocsag_syndrome(uint32_t d) { return pocsag_syndrome(d); }
