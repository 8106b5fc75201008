/* Fresh8 held-out set: py-radix 0.10.0's C radix tree (radix/_radix/
 * radix.c, from MRT): radix_search_best2 (walk down the key's path
 * pushing every node with a prefix, then pop the deepest whose prefix
 * covers the key: longest match), radix_search_worst2 (the same stack
 * scanned from the root: the shortest covering prefix), radix_search_exact
 * (walk to the key's length, one masked compare), radix_search_node (the
 * same walk, then the node's subtrees checked against the key with the
 * tree walk macros), and their mask compare
 * comp_with_mask, verbatim (extracted at bench time from $NFC_CORPUS_DIR).
 * The structs and macros are radix.h's and radix.c's. */
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
typedef unsigned int u_int;
typedef unsigned char u_char;
typedef struct _prefix_t {
        u_int family;
        u_int bitlen;
        int ref_count;
        union {
                struct in_addr sin;
                struct in6_addr sin6;
        } add;
} prefix_t;
typedef struct _radix_node_t {
        u_int bit;
        prefix_t *prefix;
        struct _radix_node_t *l, *r;
        struct _radix_node_t *parent;
        void *data;
} radix_node_t;
typedef struct _radix_tree_t {
        radix_node_t *head_ipv4;
        radix_node_t *head_ipv6;
        int num_active_node;
} radix_tree_t;
#define RADIX_MAXBITS 128
#define RADIX_WALK(Xhead, Xnode) \
        do { \
                radix_node_t *Xstack[RADIX_MAXBITS+1]; \
                radix_node_t **Xsp = Xstack; \
                radix_node_t *Xrn = (Xhead); \
                while ((Xnode = Xrn)) { \
                        if (Xnode->prefix)
#define RADIX_WALK_END \
                        if (Xrn->l) { \
                                if (Xrn->r) { \
                                        *Xsp++ = Xrn->r; \
                                } \
                                Xrn = Xrn->l; \
                        } else if (Xrn->r) { \
                                Xrn = Xrn->r; \
                        } else if (Xsp != Xstack) { \
                                Xrn = *(--Xsp); \
                        } else { \
                                Xrn = (radix_node_t *) 0; \
                        } \
                } \
        } while (0)
#define BIT_TEST(f, b)  ((f) & (b))
#define BIT_TEST_SEARCH_BIT(addr, bit) \
        BIT_TEST((addr)[(bit) >> 3], 0x80 >> ((bit) & 0x07))
#define BIT_TEST_SEARCH(addr, node) BIT_TEST_SEARCH_BIT(addr, (node)->bit)
#define prefix_touchar(prefix)          ((u_char *)&(prefix)->add)
#define RADIX_SEARCH_FOREACH(node, head, prefix) \
        for ((node) = (head); \
             (node) != NULL && (node)->bit < (prefix)->bitlen; \
             (node) = BIT_TEST_SEARCH(prefix_touchar(prefix), node) ? (node)->r : (node)->l)
#define RADIX_SEARCH_FOREACH_INCLUSIVE(node, head, prefix) \
        for ((node) = (head); \
             (node) != NULL && (node)->bit <= (prefix)->bitlen; \
             (node) = BIT_TEST_SEARCH(prefix_touchar(prefix), node) ? (node)->r : (node)->l)
#define RADIX_HEAD_BY_PREFIX(tree, prefix) \
        ((prefix)->family == AF_INET ? (tree)->head_ipv4 : (tree)->head_ipv6)
//@extract py-radix/radix/_radix/radix.c comp_with_mask radix_search_exact radix_search_node radix_search_best2 radix_search_worst2
