/* Fresh7 held-out set: ppp 2.4.9's dial-on-demand receive loop
 * (pppd/demand.c: loop_chars, the HDLC deframer of the loopback: flag and
 * escape handling, and the reflected FCS-16 byte-table step PPP_FCS over
 * every received character, the frame passed on when the FCS ends at the
 * good residue; the static table fcstab and the globals it keeps) and the
 * tdb hash (pppd/tdb.c: default_tdb_hash, gdbm's shifted-add hash with a
 * multiplicative finish), verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR). loop_frame stays external. */
#include <stdint.h>
#include <stddef.h>
typedef unsigned short u_short;
typedef uint32_t u32;
typedef struct {
	char *dptr;
	size_t dsize;
} TDB_DATA;
#define PPP_FLAG	0x7e
#define PPP_ESCAPE	0x7d
#define PPP_TRANS	0x20
#define PPP_INITFCS	0xffff
#define PPP_GOODFCS	0xf0b8
#define PPP_FCS(fcs, c)	(((fcs) >> 8) ^ fcstab[((fcs) ^ (c)) & 0xff])
char *frame;
int framelen;
int framemax;
int escape_flag;
int flush_flag;
int fcs;
int loop_frame(unsigned char *frame, int len);
//@extract ppp/pppd/demand.c fcstab loop_chars
//@extract ppp/pppd/tdb.c default_tdb_hash
u32 wrap_tdb_hash(TDB_DATA *key) { return default_tdb_hash(key); }
