/* Fresh4 held-out set: nginx 1.22.1's radix-tree lookups
 * (src/core/ngx_radix_tree.c: ngx_radix32tree_find and
 * ngx_radix128tree_find, one address bit per level remembering the last
 * value seen), verbatim (extracted at bench time from $NFC_CORPUS_DIR).
 * Types are ngx_radix_tree.h's (the pool opaque). */
#include <stdint.h>
#include <stddef.h>
typedef unsigned char u_char;
typedef uintptr_t ngx_uint_t;
typedef struct ngx_pool_s ngx_pool_t;
#define NGX_RADIX_NO_VALUE (uintptr_t) -1
typedef struct ngx_radix_node_s ngx_radix_node_t;
struct ngx_radix_node_s {
    ngx_radix_node_t *right;
    ngx_radix_node_t *left;
    ngx_radix_node_t *parent;
    uintptr_t value;
};
typedef struct {
    ngx_radix_node_t *root;
    ngx_pool_t *pool;
    ngx_radix_node_t *free;
    char *start;
    size_t size;
} ngx_radix_tree_t;
//@extract nginx/src/core/ngx_radix_tree.c ngx_radix32tree_find ngx_radix128tree_find
