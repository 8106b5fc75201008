/* Fresh3 held-out set: HAProxy 2.6.12's elastic binary tree longest-prefix
 * lookup on memory-block keys (src/ebmbtree.c's ebmb_lookup_longest and the
 * always-inlined include/import/ebmbtree.h / ebtree.h functions it uses),
 * verbatim (extracted at bench time from $NFC_CORPUS_DIR). Types, tags and
 * macros are HAProxy's (include/import/ebtree-t.h, include/haproxy/compiler.h). */
#include <stddef.h>
#define forceinline inline __attribute__((always_inline))
#define unlikely(x) (__builtin_expect((x) != 0, 0))
#define container_of(ptr, type, name) ((type *)(((void *)(ptr)) - ((long)&((type *)0)->name)))
#define ebmb_entry(ptr, type, member) container_of(ptr, type, member)
#define EB_NODE_BRANCHES 2
#define EB_LEFT 0
#define EB_RGHT 1
#define EB_LEAF 0
#define EB_NODE 1
typedef void eb_troot_t;
struct eb_root { eb_troot_t *b[EB_NODE_BRANCHES]; };
struct eb_node {
	struct eb_root branches;
	eb_troot_t *node_p;
	eb_troot_t *leaf_p;
	short int bit;
	short unsigned int pfx;
} __attribute__((packed));
struct ebmb_node {
	struct eb_node node;
	unsigned char key[0] __attribute__((aligned(sizeof(void *))));
} __attribute__((aligned(sizeof(void *))));
//@extract haproxy/include/import/ebtree.h eb_untag eb_gettag eb_root_to_node eb_walk_down check_bits
//@extract haproxy/include/import/ebmbtree.h __ebmb_lookup_longest
//@extract haproxy/src/ebmbtree.c ebmb_lookup_longest
