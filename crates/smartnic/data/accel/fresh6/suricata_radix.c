/* Fresh6 held-out set: Suricata 8.0.7's IPv4 radix tree lookups
 * (src/util-radix-tree-common.h, instantiated for IPv4 as
 * util-radix4-tree.c does: FindKey descends the Patricia tree to a leaf,
 * returns it on an exact match, else FindKeyIPNetblock climbs from there
 * to ancestors holding netmasks and tries each netmask, longest first,
 * on the masked key: the best (longest-prefix) match; NetmasksEmpty and
 * NetmaskIssetInMasks are util-radix4-tree.c's bitmap tests) and
 * Suricata's string hash (util-hash-string.c's StringHashDjb2) and hash
 * list (util-hashlist.c: HashListTableLookup, an exact bucket-chain
 * search through the table's compare callback; HashListTableGenericHash,
 * a multiplicative byte hash), verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR). The node type is util-radix4-tree.h's;
 * ContainNetmaskAndSetUserData stays external. */
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <string.h>
#include <limits.h>
#define ADDRESS_BYTES (uint8_t)4
#define NETMASK_MAX (uint8_t)32
#define RADIX_NODE_TYPE SCRadix4Node
#define RADIX_TREE_TYPE SCRadix4Tree
#define RADIX_BITTEST(x, y) ((x) & (y))
#define BIT_U64(n) (1ULL << (n))
#define SCMemcmp memcmp
#define SCLogDebug(...) ((void)0)
typedef struct SCRadix4Node_ {
    uint64_t masks : 33;
    uint64_t pad1 : 31;
    uint8_t bit;
    bool has_prefix;
    uint8_t prefix_stream[4];
    struct RadixUserData *user_data;
    struct SCRadix4Node_ *left, *right;
    struct SCRadix4Node_ *parent;
} SCRadix4Node;
typedef struct SCRadix4Tree_ {
    SCRadix4Node *head;
} SCRadix4Tree;
typedef struct HashListTableBucket_ {
    void *data;
    uint16_t size;
    struct HashListTableBucket_ *bucknext;
    struct HashListTableBucket_ *listnext;
    struct HashListTableBucket_ *listprev;
} HashListTableBucket;
typedef struct HashListTable_ {
    HashListTableBucket **array;
    HashListTableBucket *listhead;
    HashListTableBucket *listtail;
    uint32_t array_size;
    uint32_t (*Hash)(struct HashListTable_ *, void *, uint16_t);
    char (*Compare)(void *, uint16_t, void *, uint16_t);
    void (*Free)(void *);
} HashListTable;
int ContainNetmaskAndSetUserData(RADIX_NODE_TYPE *node, uint8_t netmask, bool exact_match, void **user_data_result);
//@extract suricata/src/util-radix4-tree.c NetmasksEmpty NetmaskIssetInMasks
//@extract suricata/src/util-radix-tree-common.h FindKeyIPNetblock FindKey
//@extract suricata/src/util-hash-string.c StringHashDjb2
//@extract suricata/src/util-hashlist.c HashListTableLookup HashListTableGenericHash
RADIX_NODE_TYPE *wrap_find_key(const RADIX_TREE_TYPE *t, const uint8_t *k, uint8_t m, bool e, void **u, uint8_t *o) { return FindKey(t, k, m, e, u, o); }
