/* Fresh9 held-out set: Dire Wolf 1.6's decode_aprs.c decode_tocall: on its
 * first call it loads the APRS "tocall" prefixes (device identifiers) and
 * sorts them by decreasing length (tocall_cmp); then it scans them in that
 * order and takes the description of the first prefix the destination
 * call starts with — the longest matching prefix (a linear scan over
 * prefixes sorted longest first: lpm, a hard case because the function
 * also holds the one-time loader). Verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR); the table, its bound and the search path are
 * decode_aprs.c's, the decoder state struct decode_aprs.h's with the
 * fields it does not use left out, the C library prototypes POSIX's. */
#include <stddef.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
typedef struct decode_aprs_s {
	int g_quiet;
	char g_mfr[80];
} decode_aprs_t;
extern FILE *fopen(const char *, const char *);
extern char *fgets(char *, int, FILE *);
extern int fclose(FILE *);
extern int isupper(int);
extern int isdigit(int);
extern char *strdup(const char *);
extern size_t strlcpy(char *, const char *, size_t);
typedef int (*__compar_fn_t)(const void *, const void *);
extern void qsort(void *, size_t, size_t, __compar_fn_t);
extern void text_color_set(int);
extern int dw_printf(const char *, ...);
#define DW_COLOR_ERROR 3
#define MAX_TOCALLS 250
static struct tocalls_s {
	unsigned char len;
	char prefix[7];
	char *description;
} tocalls[MAX_TOCALLS];
static int num_tocalls = 0;
//@extract direwolf/src/decode_aprs.c search_locations tocall_cmp decode_tocall
/* decode_tocall is static: called here so that -O0 emits it. */
void wrap_decode_tocall(decode_aprs_t *A, char *dest)
{
	decode_tocall(A, dest);
}
