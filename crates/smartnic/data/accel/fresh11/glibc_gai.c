/* Fresh11 held-out set: GNU C library 2.43's nss/getaddrinfo.c, the RFC
 * 3484 address sorting's policy lookups: match_prefix (the value of the
 * first entry of a prefix list that matches the address, an IPv4 address
 * mapped into ::ffff:0:0/96 first; the lists are the built-in tables,
 * written so that the first match is the longest, or the ones gai.conf
 * gives, which gaiconf_init sorts longest prefix first with qsort and
 * prefixcmp: the longest match by an order another function keeps — a
 * hard case, like fresh10's find_subnet), get_label and get_precedence
 * (its two callers, over the label and precedence lists) and get_scope
 * (IPv6 scopes by address class; an IPv4 address's scope the first entry
 * of the scope list — the built-in default_scopes, /16, /8 then /0, or
 * gai.conf's, sorted by decreasing netmask with scopecmp — whose masked
 * address matches: again the longest match by order, a hard case). Same
 * policy as fresh10's musl policyof, other code. Verbatim (extracted at
 * bench time from $NFC_CORPUS_DIR), default_scopes with them; struct
 * prefixentry and the list pointers are getaddrinfo.c's, the address
 * tests inet/netinet/in.h's, htonl_c the little-endian one. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <limits.h>
#include <netinet/in.h>
#define PF_INET AF_INET
#define PF_INET6 AF_INET6
#define s6_addr16 __in6_u.__u6_addr16
#define IN6_IS_ADDR_MULTICAST(a) (((const uint8_t *) (a))[0] == 0xff)
#define IN6_IS_ADDR_LOOPBACK(a) \
	(((const uint32_t *) (a))[0] == 0				      \
	 && ((const uint32_t *) (a))[1] == 0				      \
	 && ((const uint32_t *) (a))[2] == 0				      \
	 && ((const uint32_t *) (a))[3] == htonl (1))
#define IN6_IS_ADDR_LINKLOCAL(a) \
	((((const uint32_t *) (a))[0] & htonl (0xffc00000))		      \
	 == htonl (0xfe800000))
#define IN6_IS_ADDR_SITELOCAL(a) \
	((((const uint32_t *) (a))[0] & htonl (0xffc00000))		      \
	 == htonl (0xfec00000))
#define htonl_c(n) __builtin_bswap32 (n)
//@extract glibc/nss/getaddrinfo.c default_scopes
static const struct scopeentry *scopes;
//@extract glibc/nss/getaddrinfo.c get_scope
struct prefixentry
{
  struct in6_addr prefix;
  unsigned int bits;
  int val;
};
static const struct prefixentry *labels;
static const struct prefixentry *precedence;
//@extract glibc/nss/getaddrinfo.c match_prefix get_label get_precedence
/* All static: called here so that -O0 emits them. */
int wrap_gai(const struct sockaddr_in6 *in6)
{
	return get_scope (in6) + get_label (in6) + get_precedence (in6);
}
