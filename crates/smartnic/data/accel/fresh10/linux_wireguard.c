/* Fresh10 held-out set: Linux 6.1.4's drivers/net/wireguard/allowedips.c:
 * find_node walks WireGuard's allowed-IPs trie while the node's prefix
 * matches the key, keeping the last node that has a peer (a best-so-far
 * trie walk: the longest matching allowed prefix — lpm), with the helpers
 * choose (the next bit), fls128, common_bits and prefix_matches, and
 * swap_endian (a byte swap of the key). Verbatim (extracted at bench time
 * from $NFC_CORPUS_DIR); the node struct is allowedips.h's with its list
 * union reduced to the RCU head, the kernel macros in shim/kshim.h. */
#include "kshim.h"
struct wg_peer;
struct allowedips_node {
	struct wg_peer __rcu *peer;
	struct allowedips_node __rcu *bit[2];
	u8 cidr, bit_at_a, bit_at_b, bitlen;
	u8 bits[16] __aligned(__alignof(u64));
	unsigned long parent_bit_packed;
	struct rcu_head rcu;
};
//@extract linux/drivers/net/wireguard/allowedips.c swap_endian choose fls128 common_bits prefix_matches find_node
/* All are static: called here so that -O0 emits them. */
struct allowedips_node *wrap_find_node(struct allowedips_node *t, u8 bits, const u8 *key, u8 *dst)
{
	swap_endian(dst, key, bits);
	return find_node(t, bits, dst);
}
