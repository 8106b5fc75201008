/* Fresh5 held-out set: Kamailio 5.6.3's longest-prefix lookups on digit
 * strings (telephone-number routing), verbatim (extracted at bench time
 * from $NFC_CORPUS_DIR): src/lib/trie/dtrie.c's dtrie_longest_match (a
 * digit trie, the deepest node with data) and dtrie_contains (the same
 * walk, then an exact-length test), src/modules/prefix_route/tree.c's
 * tree_item_get (the route of the deepest node passed), src/modules/pdt/
 * pdtree.c's get_domain and src/modules/mtree/mtree.c's mt_get_tvalue
 * (node arrays indexed by a character's position, the deepest value kept).
 * Types are dtrie.h's, tree.c's, pdtree.h's and mtree.h's reduced to the
 * fields used; isdigit, strpos, the character table and logging stay
 * external or are defined here. */
#include <stdint.h>
#include <stddef.h>
typedef struct _str { char *s; int len; } str;
#define LM_ERR(...) ((void)0)
#define LM_DBG(...) ((void)0)
#define isdigit(c) ((c) >= '0' && (c) <= '9')
struct dtrie_node_t {
	struct dtrie_node_t **child;
	void *data;
};
enum { DIGITS = 10 };
struct tree_item {
	struct tree_item *digits[DIGITS];
	char name[16];
	int route;
};
typedef struct _pdt_node {
	str domain;
	struct _pdt_node *child;
} pdt_node_t;
#define PDT_MAX_DEPTH 32
extern str pdt_char_list;
#define PDT_NODE_SIZE pdt_char_list.len
typedef struct _pdt_tree {
	str sdomain;
	pdt_node_t *head;
	struct _pdt_tree *next;
} pdt_tree_t;
int strpos(char *s, char c);
typedef union {
	int n;
	str s;
} is_t;
typedef struct _mt_is {
	is_t tvalue;
	struct _mt_is *next;
} mt_is_t;
typedef struct _mt_node {
	mt_is_t *tvalues;
	void *data;
	struct _mt_node *child;
} mt_node_t;
#define MT_MAX_DEPTH 64
typedef struct _m_tree {
	str tname;
	mt_node_t *head;
	struct _m_tree *next;
} m_tree_t;
#define MT_CHAR_TABLE_NOTSET 255
extern unsigned char _mt_char_table[256];
//@extract kamailio/src/lib/trie/dtrie.c dtrie_longest_match dtrie_contains
//@extract kamailio/src/modules/prefix_route/tree.c tree_item_get
//@extract kamailio/src/modules/pdt/pdtree.c get_domain
//@extract kamailio/src/modules/mtree/mtree.c mt_get_tvalue
