/* Fresh11 held-out set: OpenSSH 9.2p1's match.c: match_pattern (a glob
 * matcher for '*' and '?', recursive on '*') and match_pattern_list
 * (whether a string matches a comma-separated list of patterns, each
 * possibly negated: any positive match counts, a negated one vetoes — a
 * list scan whose answer is no longest anything). Verbatim (extracted at
 * bench time from $NFC_CORPUS_DIR); u_char and the ctype tests declared. */
#include <stddef.h>
#include <string.h>
typedef unsigned char u_char;
typedef unsigned int u_int;
int isupper(int);
int tolower(int);
//@extract openssh/match.c match_pattern match_pattern_list
