/* Fresh held-out set: DPDK 22.11 lib/rib/rte_rib.c, the IPv4 RIB's binary
 * trie lookups, verbatim (extracted at bench time from $NFC_CORPUS_DIR);
 * the structures are copied from the same file. */
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#define unlikely(x) (x)
#define EINVAL 22
extern int rte_errno;
#define RTE_RIB_VALID_NODE	1
#define RIB_MAXDEPTH		32
#define RTE_RIB_NAMESIZE	64
struct rte_mempool;
struct rte_rib_node {
	struct rte_rib_node	*left;
	struct rte_rib_node	*right;
	struct rte_rib_node	*parent;
	uint32_t	ip;
	uint8_t		depth;
	uint8_t		flag;
	uint64_t	nh;
	__extension__ uint64_t ext[];
};
struct rte_rib {
	char		name[RTE_RIB_NAMESIZE];
	struct rte_rib_node	*tree;
	struct rte_mempool	*node_pool;
	uint32_t		cur_nodes;
	uint32_t		cur_routes;
	uint32_t		max_nodes;
};
//@extract dpdk/lib/rib/rte_rib.h rte_rib_depth_to_mask
//@extract dpdk/lib/rib/rte_rib.c is_valid_node is_covered get_nxt_node rte_rib_lookup rte_rib_lookup_parent __rib_lookup_exact rte_rib_lookup_exact
