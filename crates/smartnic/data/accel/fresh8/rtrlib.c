/* Fresh8 held-out set: RTRlib 0.8.0's prefix trie (rtrlib/pfx/trie/
 * trie.c, a "longest prefix first search tree": a node's prefix is never
 * longer than its children's, insertion swaps to keep it so): trie_lookup
 * (the first node on the key's path whose prefix covers the key — the
 * shortest covering prefix; the caller iterates it), trie_lookup_exact
 * and the recursive trie_insert, with the address helpers they call
 * (lib/ip.c, ipv4.c, ipv6.c, utils.c), verbatim (extracted at bench time
 * from $NFC_CORPUS_DIR). The structs are trie_private.h's and ip.h's. */
#include <stdint.h>
#include <stdbool.h>
#include <assert.h>
#include <stddef.h>
#include <string.h>
#define RTRLIB_EXPORT
enum lrtr_ip_version { LRTR_IPV4, LRTR_IPV6 };
struct lrtr_ipv4_addr { uint32_t addr; };
struct lrtr_ipv6_addr { uint32_t addr[4]; };
struct lrtr_ip_addr {
	enum lrtr_ip_version ver;
	union {
		struct lrtr_ipv4_addr addr4;
		struct lrtr_ipv6_addr addr6;
	} u;
};
struct trie_node {
	struct lrtr_ip_addr prefix;
	struct trie_node *rchild;
	struct trie_node *lchild;
	struct trie_node *parent;
	void *data;
	uint8_t len;
};
bool lrtr_ipv6_addr_equal(const struct lrtr_ipv6_addr *a, const struct lrtr_ipv6_addr *b);
//@extract rtrlib/rtrlib/lib/utils.c lrtr_get_bits
//@extract rtrlib/rtrlib/lib/ipv4.c lrtr_ipv4_get_bits lrtr_ipv4_addr_equal
//@extract rtrlib/rtrlib/lib/ipv6.c lrtr_ipv6_get_bits
//@extract rtrlib/rtrlib/lib/ip.c lrtr_ip_addr_is_zero lrtr_ip_addr_get_bits lrtr_ip_addr_equal
//@extract rtrlib/rtrlib/pfx/trie/trie.c swap_nodes
enum child_node_rel { LEFT, RIGHT };
//@extract rtrlib/rtrlib/pfx/trie/trie.c add_child_node is_left_child trie_insert trie_lookup trie_lookup_exact
