/* Fresh5 held-out set: FreeRADIUS 3.2.1, verbatim (extracted at bench time
 * from $NFC_CORPUS_DIR): src/main/client.c's client_find (one red-black
 * tree of clients per prefix length; the address masked to each length
 * from the longest down, the first tree that holds it answers: a longest
 * match by shorten and retry) and src/lib/hash.c's FNV-1 hashes fr_hash,
 * fr_hash_update and fr_hash_string and its bucket chain search list_find
 * (entries ordered by bit-reversed key, an exact match). Types are
 * libradius.h's, clients.h's, client.c's and hash.c's reduced to the
 * fields used; the tree search and the address mask stay external. */
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#define AF_INET 2
#define AF_INET6 10
struct in_addr { uint32_t s_addr; };
struct in6_addr { uint8_t s6_addr[16]; };
typedef struct fr_ipaddr_t {
	int		af;	/* address family */
	union {
		struct in_addr	ip4addr;
		struct in6_addr ip6addr; /* maybe defined in missing.h */
	} ipaddr;
	uint8_t		prefix;
	uint32_t	scope;	/* for IPv6 */
} fr_ipaddr_t;
typedef struct rbtree_t rbtree_t;
typedef struct radclient_list RADCLIENT_LIST;
struct radclient_list {
	char const	*name;
	char const	*server;
	rbtree_t	*trees[129];
	uint32_t	min_prefix;
	bool		parsed;
};
typedef struct radclient {
	RADCLIENT_LIST	*list;
	fr_ipaddr_t	ipaddr;
	fr_ipaddr_t	src_ipaddr;
	char const	*longname;
	char const	*shortname;
	char const	*secret;
	int		proto;
} RADCLIENT;
extern RADCLIENT_LIST *root_clients;
void *rbtree_finddata(rbtree_t *tree, void const *data);
void fr_ipaddr_mask(fr_ipaddr_t *addr, uint8_t prefix);
typedef struct fr_hash_entry_s fr_hash_entry_t;
typedef int (*fr_hash_table_cmp_t)(void const *a, void const *b);
struct fr_hash_entry_s {
	fr_hash_entry_t *next;
	uint32_t	reversed;
	uint32_t	key;
	void const 	*data;
};
typedef struct fr_hash_table_t {
	int			num_elements;
	int			num_buckets;
	int			next_grow;
	int			mask;
	fr_hash_table_cmp_t	cmp;
	fr_hash_entry_t	null;
	fr_hash_entry_t	**buckets;
} fr_hash_table_t;
#define FNV_MAGIC_INIT (0x811c9dc5)
#define FNV_MAGIC_PRIME (0x01000193)
//@extract freeradius/src/main/client.c client_find
//@extract freeradius/src/lib/hash.c list_find fr_hash fr_hash_update fr_hash_string
/* Static functions are emitted only when called. */
fr_hash_entry_t *wrap_list_find(fr_hash_table_t *ht, fr_hash_entry_t *head,
				uint32_t reversed, void const *data) {
	return list_find(ht, head, reversed, data);
}
