/* Fresh5 held-out set: rbldnsd 1.0's btrie (btrie.c, Jeff Dairiki's
 * level-compressed tree bitmap trie behind ip4trie/ip6trie/acl datasets),
 * verbatim (extracted at bench time from $NFC_CORPUS_DIR): search_trie
 * (the longest match: LC nodes compared by prefix, tree-bitmap nodes
 * remembering the last node with internal data, whose deepest prefix is
 * taken at the end) and btrie_lookup (its public wrapper), with the
 * inline bit helpers they use. Types and macros are btrie.c's for a
 * 32-bit pointer (TBM_STRIDE 4), reduced to the fields used; assert is
 * off. */
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#define assert(x) ((void)0)
typedef uint8_t btrie_oct_t;
#define TBM_STRIDE 4
typedef uint16_t tbm_bitmap_t;
#define TBM_FANOUT         (1U << TBM_STRIDE)
#define LC_BYTES_PER_NODE  (__SIZEOF_POINTER__ - 1)
typedef union node_u node_t;
struct tbm_node {
  tbm_bitmap_t ext_bm;        /* extending path ("external") bitmap */
  tbm_bitmap_t int_bm;        /* the internal bitmap */
  union {
    node_t *children;         /* pointer to array of children */
    const void **data_end;    /* one past end of internal prefix data array */
  } ptr;
};
struct lc_node {
# define LC_FLAGS_IS_LC       0x80
# define LC_FLAGS_IS_TERMINAL 0x40
# define LC_FLAGS_LEN_MASK    0x3f
  btrie_oct_t      prefix[LC_BYTES_PER_NODE];
  btrie_oct_t      lc_flags;
  union {
    node_t *child;            /* pointer to child (if !is_terminal) */
    const void *data;         /* the prefix data (if is_terminal) */
  } ptr;
};
union node_u {
  struct tbm_node tbm_node;
  struct lc_node  lc_node;
};
struct btrie {
  node_t root;
};
//@extract rbldnsd/btrie.c bit count_bits count_bits_before count_bits_from extract_bits high_bits prefixes_equal is_lc_node base_index tbm_data_p has_internal_data tbm_ext_path lc_is_terminal lc_len lc_shift lc_base search_trie btrie_lookup
