/* Fresh2 held-out set: DPDK 22.11 lib/rib/rte_rib6.c, the IPv6 RIB's
 * binary trie lookups, verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR); the structures and constants are copied from the same
 * files. */
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#define unlikely(x) (x)
#define EINVAL 22
#define RTE_MIN(a, b) ((a) < (b) ? (a) : (b))
#define RTE_MAX(a, b) ((a) > (b) ? (a) : (b))
#define UINT8_MAX 255
#define INT8_MAX 127
#define CHAR_BIT 8
extern int rte_errno;
#define RTE_RIB_VALID_NODE	1
#define RIB6_MAXDEPTH		128
#define RTE_RIB6_IPV6_ADDR_SIZE	16
#define RTE_RIB6_NAMESIZE	64
struct rte_mempool;
struct rte_rib6_node {
	struct rte_rib6_node	*left;
	struct rte_rib6_node	*right;
	struct rte_rib6_node	*parent;
	uint64_t		nh;
	uint8_t			ip[RTE_RIB6_IPV6_ADDR_SIZE];
	uint8_t			depth;
	uint8_t			flag;
	__extension__ uint64_t ext[];
};
struct rte_rib6 {
	char		name[RTE_RIB6_NAMESIZE];
	struct rte_rib6_node	*tree;
	struct rte_mempool	*node_pool;
	uint32_t		cur_nodes;
	uint32_t		cur_routes;
	int			max_nodes;
};
//@extract dpdk/lib/rib/rte_rib6.h get_msk_part
//@extract dpdk/lib/rib/rte_rib6.c is_valid_node is_covered get_dir get_nxt_node rte_rib6_lookup rte_rib6_lookup_parent
