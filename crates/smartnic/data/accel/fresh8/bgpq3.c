/* Fresh8 held-out set: bgpq3 0.1.36.1's prefix radix tree (sx_prefix.c):
 * sx_radix_tree_lookup (walk down by the key's next bit while the node's
 * prefix covers it, keeping the last non-glue node as the candidate: the
 * longest match) and the recursive pre-order walk sx_radix_node_foreach
 * (a callback on every node, no key), with the bit helpers
 * sx_prefix_eqbits and sx_prefix_isbitset, verbatim (extracted at bench
 * time from $NFC_CORPUS_DIR). The structs are sx_prefix.h's. The
 * "unreachable" branch's printer and abort stay external. */
#include <stdint.h>
#include <sys/socket.h>
#include <netinet/in.h>
typedef struct sx_prefix {
	int family;
	int masklen;
	union {
		struct in_addr  addr;
		struct in6_addr addr6;
		unsigned char   addrs[sizeof(struct in6_addr)];
	} addr;
} sx_prefix_t;
typedef struct sx_radix_node {
	struct sx_radix_node* parent, *l, *r, *son;
	void* payload;
	unsigned int isGlue:1;
	unsigned int isAggregated:1;
	unsigned int isAggregate:1;
	unsigned int aggregateLow;
	unsigned int aggregateHi;
	struct sx_prefix prefix;
} sx_radix_node_t;
typedef struct sx_radix_tree {
	int family;
	struct sx_radix_node* head;
} sx_radix_tree_t;
int sx_prefix_snprintf(struct sx_prefix* p, char* rbuffer, int srb);
int printf(const char *, ...);
void abort(void);
//@extract bgpq3/sx_prefix.c sx_prefix_isbitset sx_prefix_eqbits sx_radix_tree_lookup sx_radix_node_foreach sx_radix_tree_foreach
