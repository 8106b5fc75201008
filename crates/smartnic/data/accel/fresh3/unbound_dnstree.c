/* Fresh3 held-out set: Unbound 1.17.1's netblock tree lookup
 * (util/storage/dnstree.c's addr_tree_lookup: the greatest key <= the
 * address in a red-black tree, then up the parent netblocks until one
 * covers it), the red-black search it calls (util/rbtree.c) and the
 * util/net_help.c helpers, verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR; the tree types are the whole util/rbtree.h, the node
 * type is util/storage/dnstree.h's). */
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#define log_assert(x) do { } while (0)
#define fptr_ok(x) do { } while (0)
//@include unbound/util/rbtree.h
struct addr_tree_node {
	rbnode_type node;
	struct addr_tree_node* parent;
	struct sockaddr_storage addr;
	socklen_t addrlen;
	int net;
};
//@extract unbound/util/rbtree.c rbtree_find_less_equal
//@extract unbound/util/net_help.c addr_is_ip6 addr_in_common
//@extract unbound/util/storage/dnstree.c addr_tree_lookup
