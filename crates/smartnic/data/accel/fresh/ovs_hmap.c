/* Fresh held-out set: Open vSwitch include/openvswitch/hmap.h, the hash
 * map's bucket and chain walks, verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR); the structures are copied from the same header. */
#include <stddef.h>
#define CONST_CAST(TYPE, POINTER) ((TYPE) (POINTER))
struct hmap_node { size_t hash; struct hmap_node *next; };
struct hmap { struct hmap_node **buckets; struct hmap_node *one; size_t mask; size_t n; };
//@extract openvswitch/include/openvswitch/hmap.h hmap_next_with_hash__ hmap_first_with_hash hmap_next__
struct hmap_node *wrap_first(const struct hmap *m, size_t h) { return hmap_first_with_hash(m, h); }
struct hmap_node *wrap_next(const struct hmap *m, size_t s) { return hmap_next__(m, s); }
