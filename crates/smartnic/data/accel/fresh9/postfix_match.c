/* Fresh9 held-out set: Postfix 3.7.11's util/match_ops.c match_hostname:
 * is the host name in a list pattern — a table looked up with the name and
 * then each parent domain (longest first, stopping at the first hit), or a
 * literal name or parent-domain pattern compared whole. It returns only
 * whether some entry matched (a boolean: an any-match, not a longest-match
 * lookup: none, the look-alike of check_domain_access). Verbatim
 * (extracted at bench time from $NFC_CORPUS_DIR); the structs are dict.h's
 * and match_list.h's with the fields it does not use made opaque, the
 * macros match_ops.c's and dict.h's. */
#include <stddef.h>
#include <string.h>
typedef struct DICT {
    char   *type;
    char   *name;
    int     flags;
    const char *(*lookup) (struct DICT *, const char *);
    int     error;
} DICT;
typedef struct MATCH_LIST {
    char   *pname;
    int     flags;
    void   *patterns;
    int     error;
} MATCH_LIST;
#define DICT_FLAG_FIXED		(1<<4)
#define MATCH_FLAG_PARENT	(1<<0)
#define dict_get(dp, key)	((const char *) (dp)->lookup((dp), (key)))
extern int msg_verbose;
extern void msg_info(const char *, ...);
extern void msg_panic(const char *, ...);
extern DICT *dict_handle(const char *);
extern int match_error(MATCH_LIST *, const char *, ...);

#define MATCH_DICTIONARY(pattern) \
    ((pattern)[0] != '[' && strchr((pattern), ':') != 0)


//@extract postfix/src/util/match_ops.c match_hostname
