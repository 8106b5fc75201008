/* Fresh10 held-out set: Linux 6.1.4's kernel/bpf/lpm_trie.c, the BPF
 * longest-prefix-match map: trie_lookup_elem walks the binary trie from the
 * root, keeping the last non-intermediate node whose prefix matches the key
 * (a best-so-far trie walk: lpm), with its helpers extract_bit and
 * longest_prefix_match (the matching bit count of a node and a key).
 * Verbatim (extracted at bench time from $NFC_CORPUS_DIR); the structs are
 * lpm_trie.c's and uapi/linux/bpf.h's with the map header reduced to
 * fields it does not read, the kernel macros in shim/kshim.h. */
#include "kshim.h"
#define LPM_TREE_NODE_FLAG_IM BIT(0)
struct bpf_map { u32 map_type, key_size, value_size, max_entries; };
struct bpf_lpm_trie_key {
	__u32	prefixlen;
	__u8	data[0];
};
struct lpm_trie_node {
	struct rcu_head rcu;
	struct lpm_trie_node __rcu	*child[2];
	u32				prefixlen;
	u32				flags;
	u8				data[];
};
struct lpm_trie {
	struct bpf_map			map;
	struct lpm_trie_node __rcu	*root;
	size_t				n_entries;
	size_t				max_prefixlen;
	size_t				data_size;
	int				lock;
};
//@extract linux/kernel/bpf/lpm_trie.c extract_bit longest_prefix_match trie_lookup_elem
/* All three are static: called here so that -O0 emits them. */
void *wrap_trie_lookup_elem(struct bpf_map *map, void *key)
{
	return trie_lookup_elem(map, key);
}
