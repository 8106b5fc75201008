/* Fresh6 held-out set: masscan 1.3.2's SCTP checksum (src/proto-sctp.c:
 * sctp_checksum, the reflected CRC-32C table step over the header with the
 * checksum field taken as zero and the rest of the packet, byte-swapped),
 * verbatim (extracted at bench time from $NFC_CORPUS_DIR). The table
 * stays external; the one-line step macro is proto-sctp.c's. */
#include <stddef.h>
#define CRC32C(c,d) (c=(c>>8)^crc_c[(c^(d))&0xFF])
extern unsigned crc_c[256];
//@extract masscan/src/proto-sctp.c sctp_checksum
