/* Fresh6 held-out set: gdnsd 3.8.3's network tree lookups
 * (libgdmaps/ntree.c: ntree_lookup_v6 and ntree_lookup_v4 walk a binary
 * trie flattened into an array, one address bit per level, to the leaf
 * that holds the datacenter list of the most specific network; the tree
 * is built from a normalised network list), verbatim (extracted at bench
 * time from $NFC_CORPUS_DIR). Types are ntree.h's. */
#include <stdint.h>
#include <stdbool.h>
#define F_NONNULL
#define gdnsd_assert(e) ((void)0)
#define NN_UNDEF UINT32_MAX
#define NN_IS_DCLIST(x) ((x) & (1U << 31U))
#define NN_GET_DCLIST(x) ((x) & ~(1U << 31U))
typedef struct {
    uint32_t zero;
    uint32_t one;
} nnode_t;
typedef struct {
    nnode_t* store;
    unsigned ipv4;
    unsigned count;
    unsigned alloc;
} ntree_t;
//@extract gdnsd/libgdmaps/ntree.c CHKBIT_v6 ntree_lookup_v6 CHKBIT_v4 ntree_lookup_v4
unsigned wrap_v6(const ntree_t *t, const uint8_t *ip, unsigned *m) { return ntree_lookup_v6(t, ip, m); }
unsigned wrap_v4(const ntree_t *t, uint32_t ip, unsigned *m) { return ntree_lookup_v4(t, ip, m); }
