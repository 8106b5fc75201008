/* Fresh9 held-out set: Postfix 3.7.11's smtpd/smtpd_check.c access-table
 * lookups: check_addr_access looks the client address up, then the address
 * cut at its last '.' (':' for IPv6) again and again — the address, then
 * its parent networks, longest first — and returns the verdict of the
 * first table hit (the longest matching prefix: the djbdns "shorten and
 * retry" class); check_domain_access looks the domain up, then each parent
 * domain in turn (longest first, first hit's verdict: the longest match
 * over the name's labels from the root). Verbatim (extracted at bench time
 * from $NFC_CORPUS_DIR); the declarations below are Postfix's headers'
 * (maps.h, vstring.h, split_at.h, valid_hostname.h, match_list.h, dict.h,
 * msg.h) and smtpd_check.c's statics, reduced to what the two functions
 * use (the state struct stays opaque: they only pass it on). */
#include <stddef.h>
#include <string.h>
#define HAS_IPV6
typedef struct SMTPD_STATE SMTPD_STATE;
typedef struct HTABLE HTABLE;
typedef struct VBUF { int flags; unsigned char *data; ptrdiff_t len; ptrdiff_t cnt; unsigned char *ptr; } VBUF;
typedef struct VSTRING { VBUF vbuf; } VSTRING;
typedef struct MAPS {
    char   *title;
    struct ARGV *argv;
    int     error;			/* last request only */
} MAPS;
#define vstring_str(vp)		((char *) (vp)->vbuf.data)
#define STR	vstring_str
#define DICT_FLAG_FIXED		(1<<4)
#define MATCH_FLAG_PARENT	(1<<0)
#define DONT_GRIPE		0
#define SMTPD_CHECK_DUNNO	0
#define FULL	0
#define PARTIAL	DICT_FLAG_FIXED
#define FOUND	1
#define MISSED	0
extern int msg_verbose;
extern void msg_info(const char *, ...);
extern void msg_warn(const char *, ...);
extern void *htable_find(HTABLE *, const char *);
extern const char *maps_find(MAPS *, const char *, int);
extern char *split_at_right(char *, int);
extern int valid_hostaddr(const char *, int);
extern VSTRING *vstring_strcpy(VSTRING *, const char *);
extern int check_table_result(SMTPD_STATE *state, const char *table,
			              const char *value, const char *datum,
			              const char *reply_name,
			              const char *reply_class,
			              const char *def_acl);
static VSTRING *error_text;
static HTABLE *map_command_table;
static int access_parent_style;
//@extract postfix/src/smtpd/smtpd_check.c check_domain_access check_addr_access
/* Both are static: called here so that -O0 emits them. */
int wrap_check_access(SMTPD_STATE *s, const char *t, const char *d, int *f)
{
	return check_domain_access(s, t, d, 0, f, "", "", "")
	    + check_addr_access(s, t, d, 0, f, "", "", "");
}
