/* Fresh11 held-out set: GNU coreutils 9.10's POSIX cksum and BSD/System V
 * sum: src/cksum_crc.c fill_r and crc_remainder (the generator of
 * crctab.c: the CRC-32 remainders of x^8..x^15 by the MSB-first
 * polynomial, then a table entry as the xor of the powers its byte
 * selects), cksum_slice8 (the MSB-first CRC-32 over a stream, slicing by
 * eight through src/crctab.c's eight tables, the tail byte by byte) and
 * crc_sum_stream (picks the stream CRC, then feeds the length's bytes into
 * the register with the table step and inverts it: POSIX cksum), with
 * src/sum.c bsd_sum_stream (the BSD sum: a 16-bit rotate right and add
 * per byte — a checksum, no polynomial) and sysv_sum_stream (System V sum:
 * a plain sum, folded). Verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR), the constant tables with them; the generator's macros
 * are cksum_crc.c's own (its CRCTAB part), the rest (the stream type,
 * ckd_add, htobe32, the hardware-CRC probes crc_sum_stream calls) is
 * declared here. */
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#ifndef EOVERFLOW
#define EOVERFLOW 75
#endif
size_t fread(void *, size_t, size_t, FILE *);
int feof(FILE *);
int ferror(FILE *);
#define BIT(x)	(1u << (x))
#define SBIT	BIT (31)
#define GEN	(BIT (26) | BIT (23) | BIT (22) | BIT (16) | BIT (12) \
                 | BIT (11) | BIT (10) | BIT (8) | BIT (7) | BIT (5) \
                 | BIT (4) | BIT (2) | BIT (1) | BIT (0))
static unsigned int r[8];
//@extract coreutils/src/cksum_crc.c fill_r crc_remainder
//@extract coreutils/src/crctab.c crctab
#define BUFLEN (1 << 16)
#define ckd_add(r, a, b) __builtin_add_overflow (a, b, r)
#define htobe32(x) __builtin_bswap32 (x)
typedef bool (*cksum_fp_t) (FILE *, uint_fast32_t *, uintmax_t *);
cksum_fp_t avx512_supported (void);
cksum_fp_t avx2_supported (void);
cksum_fp_t pclmul_supported (void);
cksum_fp_t vmull_supported (void);
//@extract coreutils/src/cksum_crc.c cksum_slice8 crc_sum_stream
//@extract coreutils/src/sum.c bsd_sum_stream sysv_sum_stream
/* The table generator's functions are static: called here so that -O0
 * emits them. */
unsigned int wrap_crctab (int m)
{
	fill_r ();
	return crc_remainder (m);
}
