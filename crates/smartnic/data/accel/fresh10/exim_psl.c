/* Fresh10 held-out set: Exim 4.100.1's src/lookups/psl.c psl_gen_find, the
 * public-suffix-list lookup: every rule of the list file is compared with
 * the key from the right, label by label (wildcard and exception rules
 * handled), and the matching rule with the most labels is kept (a
 * best-so-far over matching suffixes by label count: the longest match
 * over the name's labels from the root — lpm, a hard case like fresh9's
 * check_domain_access; exception rules end the search). Verbatim
 * (extracted at bench time from $NFC_CORPUS_DIR); the types, casts and
 * helpers are exim.h's (mytypes.h, functions.h, macros.h, debug), reduced to
 * what the function uses, with debugging compiled out. */
#include <stddef.h>
#include <string.h>
#include <stdio.h>
typedef unsigned char uschar;
typedef int BOOL;
#define TRUE 1
#define FALSE 0
#define OK 0
#define FAIL 2
#define US (unsigned char *)
#define CS (char *)
#define CSS (char **)
#define Ustrlen(s) (int)strlen(CS (s))
#define DEBUG(x) if (0)
#define GET_UNTAINTED ((const void *)0)
extern int isupper(int);
extern void debug_printf_indent(const char *, ...);
extern char *strsep(char **, const char *);
extern void rewind(FILE *);
extern char *fgets(char *, int, FILE *);
extern BOOL string_is_utf8(const uschar *);
extern uschar *string_domain_utf8_to_alabel(const uschar *, uschar **);
extern uschar *string_domain_alabel_to_utf8(const uschar *, uschar **);
extern uschar *string_copylc(const uschar *);
extern uschar *string_copy_taint(const uschar *, const void *);
extern uschar *string_sprintf(const char *, ...);
//@extract exim4/src/lookups/psl.c psl_gen_find
/* psl_gen_find is static: called here so that -O0 emits it. */
int wrap_psl_find(void *handle, const uschar *key, int length, uschar **result, uschar **errmsg)
{
	return psl_gen_find(handle, key, length, result, errmsg, FALSE);
}
