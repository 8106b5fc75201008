/* Fresh4 held-out set: BIND 9.18.49's radix-tree searches, verbatim
 * (extracted at bench time from $NFC_CORPUS_DIR): lib/isc/radix.c's
 * isc_radix_search (collects every covering prefix on the path, then
 * returns the one ADDED FIRST: ACL first-match semantics, not the longest)
 * with its masked compare, and lib/dns/rpz.c's `search` (the deepest
 * covering node with data for the zones asked, or an insertion when
 * `create`) with its key helpers. Types are isc/radix.h's and rpz.c's /
 * rpz.h's reduced to the fields used; allocation stays external. */
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <string.h>
#include <sys/types.h>
#include <netinet/in.h>
#include <isc/util.h>
typedef int isc_result_t;
#define ISC_R_SUCCESS 0
#define ISC_R_EXISTS 18
#define ISC_R_NOMEMORY 1
#define ISC_R_NOTFOUND 23
#define DNS_R_PARTIALMATCH 65561
#define BIT_TEST(f, b) (((f) & (b)) != 0)
#define RADIX_MAXBITS 128
#define RADIX_V4 0
#define RADIX_V6 1
#define RADIX_FAMILIES 2
typedef struct isc_mem isc_mem_t;
typedef struct isc_prefix {
	isc_mem_t *mctx;
	unsigned int family;
	unsigned int bitlen;
	int refcount;
	union {
		struct in_addr sin;
		struct in6_addr sin6;
	} add;
} isc_prefix_t;
#define isc_prefix_tochar(prefix)  ((char *)&(prefix)->add.sin)
#define isc_prefix_touchar(prefix) ((u_char *)&(prefix)->add.sin)
#define ISC_RADIX_FAMILY(p) (((p)->family == AF_INET6) ? RADIX_V6 : RADIX_V4)
typedef struct isc_radix_node {
	isc_mem_t *mctx;
	uint32_t bit;
	isc_prefix_t *prefix;
	struct isc_radix_node *l, *r;
	struct isc_radix_node *parent;
	void *data[RADIX_FAMILIES];
	int node_num[RADIX_FAMILIES];
} isc_radix_node_t;
typedef struct isc_radix_tree {
	unsigned int magic;
	isc_mem_t *mctx;
	isc_radix_node_t *head;
	uint32_t maxbits;
	int num_active_node;
	int num_added_node;
} isc_radix_tree_t;
typedef uint8_t dns_rpz_prefix_t;
typedef uint64_t dns_rpz_zbits_t;
typedef uint32_t dns_rpz_cidr_word_t;
#define DNS_RPZ_CIDR_WORD_BITS ((int)sizeof(dns_rpz_cidr_word_t) * 8)
#define DNS_RPZ_CIDR_WORDS     (128 / DNS_RPZ_CIDR_WORD_BITS)
typedef struct { dns_rpz_cidr_word_t w[DNS_RPZ_CIDR_WORDS]; } dns_rpz_cidr_key_t;
#define DNS_RPZ_IP_BIT(ip, n)                          \
	(1 & ((ip)->w[(n) / DNS_RPZ_CIDR_WORD_BITS] >> \
	      (DNS_RPZ_CIDR_WORD_BITS - 1 - ((n) % DNS_RPZ_CIDR_WORD_BITS))))
typedef struct dns_rpz_addr_zbits { dns_rpz_zbits_t client_ip, ip, nsip; } dns_rpz_addr_zbits_t;
typedef struct dns_rpz_cidr_node dns_rpz_cidr_node_t;
struct dns_rpz_cidr_node {
	dns_rpz_cidr_node_t *parent;
	dns_rpz_cidr_node_t *child[2];
	dns_rpz_cidr_key_t ip;
	dns_rpz_prefix_t prefix;
	dns_rpz_addr_zbits_t set;
	dns_rpz_addr_zbits_t sum;
};
typedef struct dns_rpz_zones { isc_mem_t *mctx; dns_rpz_cidr_node_t *cidr; } dns_rpz_zones_t;
#define HAVE_BUILTIN_CLZ 1
void isc_mem_put(isc_mem_t *, void *, size_t);
dns_rpz_cidr_node_t *new_node(dns_rpz_zones_t *rpzs, const dns_rpz_cidr_key_t *ip,
	 dns_rpz_prefix_t prefix, const dns_rpz_cidr_node_t *child);
void set_sum_pair(dns_rpz_cidr_node_t *cnode);
//@extract bind9/lib/isc/radix.c _comp_with_mask isc_radix_search
//@extract bind9/lib/dns/rpz.c diff_keys trim_zbits search
isc_result_t wrap_search(dns_rpz_zones_t *rpzs, const dns_rpz_cidr_key_t *tgt_ip, dns_rpz_prefix_t tgt_prefix, const dns_rpz_addr_zbits_t *tgt_set, bool create, dns_rpz_cidr_node_t **found) { return search(rpzs, tgt_ip, tgt_prefix, tgt_set, create, found); }
