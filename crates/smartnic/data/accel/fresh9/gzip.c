/* Fresh9 held-out set: gzip 1.12's deflate.c longest_match (LZ77 match
 * finder: follows the hash chain of earlier positions, compares each
 * candidate string with the current one and keeps the longest match so far
 * with its start, returned after the chain ends or a long enough match —
 * a best-so-far walk over a chain that is no prefix lookup: none, hard
 * case); verbatim (extracted at bench time from $NFC_CORPUS_DIR). The
 * types, macros and globals are gzip.h's and deflate.c's (C version, no
 * UNALIGNED_OK). */
typedef unsigned char  uch;
typedef unsigned short ush;
typedef unsigned IPos;
#define WSIZE 0x8000
#define WMASK     (WSIZE-1)
#define HASH_BITS  15
#define MIN_MATCH  3
#define MAX_MATCH  258
#define MIN_LOOKAHEAD (MAX_MATCH+MIN_MATCH+1)
#define MAX_DIST  (WSIZE-MIN_LOOKAHEAD)
#define NIL 0
#define Assert(cond,msg)
extern uch window[2L*WSIZE];
extern ush prev[1L<<16];
static unsigned long window_size = (unsigned long)2*WSIZE;
unsigned int max_chain_length;
unsigned int prev_length;
unsigned strstart;
unsigned int match_start;
unsigned good_match;
int nice_match;
//@extract gzip/deflate.c longest_match
/* longest_match is static: called here so that -O0 emits it. */
int wrap_longest_match(IPos cur_match)
{
	return longest_match(cur_match);
}
