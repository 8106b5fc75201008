/* Fresh10 held-out set: ISC DHCP 4.4.3-P1's common/dns.c find_cached_zone:
 * the DDNS zone for a name is looked up in the zone table for the name,
 * then for each parent domain (the name cut after its next '.'), and the
 * first hit is taken — the most specific enclosing zone (the
 * shorten-and-retry class through an external lookup, lpm; the rest of
 * the function copies the zone's name and name-server addresses). Verbatim
 * (extracted at bench time from $NFC_CORPUS_DIR); the structs are
 * dhcpd.h's reduced to the fields it uses, the ISC list macro
 * isc/list.h's, the lookups and option evaluation declared extern. */
#include <stddef.h>
#include <string.h>
#define MDL __FILE__, __LINE__
typedef int isc_result_t;
#define ISC_R_SUCCESS 0
#define ISC_R_NOTFOUND 23
#define ISC_R_FAILURE 25
#define ISC_R_NOSPACE 19
#define DHCP_R_INVALIDARG (65536 + 3)
#define DHCP_MAXNS 3
#define DHCP_MAXDNS_WIRE 256
#define NS_DEFAULTPORT 53
#define DNS_ZONE_INACTIVE 1
#define FIND_FORWARD 0
typedef unsigned short u_int16_t;
struct in_addr { unsigned int s_addr; };
struct in6_addr { unsigned char s6_addr[16]; };
struct data_string { struct buffer *buffer; const unsigned char *data; unsigned len; int terminated; };
typedef struct isc_sockaddr isc_sockaddr_t;
struct isc_sockaddr { unsigned char type[28]; unsigned int length; struct { isc_sockaddr_t *prev, *next; } link; };
typedef struct { isc_sockaddr_t *head, *tail; } isc_sockaddrlist_t;
#define ISC_LIST_APPEND(list, elt, link) \
	do { \
		if ((list).tail != NULL) \
			(list).tail->link.next = (elt); \
		else \
			(list).head = (elt); \
		(elt)->link.prev = (list).tail; \
		(elt)->link.next = NULL; \
		(list).tail = (elt); \
	} while (0)
struct dns_zone {
	int refcnt;
	long timeout;
	char *name;
	struct option_cache *primary;
	struct option_cache *secondary;
	struct option_cache *primary6;
	struct option_cache *secondary6;
	struct auth_key *key;
	u_int16_t flags;
};
typedef struct dhcp_ddns_cb {
	struct data_string fwd_name;
	struct data_string rev_name;
	unsigned char zone_name[DHCP_MAXDNS_WIRE];
	isc_sockaddrlist_t zone_server_list;
	isc_sockaddr_t zone_addrs[DHCP_MAXNS];
	struct dns_zone *zone;
} dhcp_ddns_cb_t;
extern struct binding_scope *global_scope;
extern isc_result_t dns_zone_lookup(struct dns_zone **, const char *);
extern int dns_zone_reference(struct dns_zone **, struct dns_zone *, const char *, int);
extern int dns_zone_dereference(struct dns_zone **, const char *, int);
extern int evaluate_option_cache(struct data_string *, void *, void *, void *, void *, void *,
				 struct binding_scope **, struct option_cache *, const char *, int);
extern void data_string_forget(struct data_string *, const char *, int);
extern void isc_sockaddr_fromin(isc_sockaddr_t *, const struct in_addr *, unsigned int);
extern void isc_sockaddr_fromin6(isc_sockaddr_t *, const struct in6_addr *, unsigned int);
//@extract isc-dhcp/common/dns.c find_cached_zone
