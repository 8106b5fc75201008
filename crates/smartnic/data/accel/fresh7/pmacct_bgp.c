/* Fresh7 held-out set: pmacct 1.7.8's BGP RIB longest match (src/bgp/
 * bgp_table.c: bgp_node_match walks down the binary radix tree on the
 * key's bits while the node's prefix contains the key, and at each node
 * keeps the last route entry the caller's compare accepts: the most
 * specific; with bgp_prefix.c's prefix_match and maskbit and the
 * table's check_bit), verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR). The structs are reduced to the fields read (the node
 * and prefix layouts are bgp_table.h's and bgp_prefix.h's); the peer's
 * table settings, locking and debug dump stay external. */
#include <stdint.h>
#include <stddef.h>
#include <assert.h>
#include <netinet/in.h>
typedef unsigned char u_char;
typedef uint8_t u_int8_t;
typedef uint32_t u_int32_t;
typedef uint32_t path_id_t;
#define PNBBY 8
#define BGP_NODE_VECTOR_MAX_DEPTH 128
#define BGP_ASPATH_HASH_PATHID	0x00000000
struct prefix
{
  u_char family;
  u_char prefixlen;
  union
  {
    u_char prefix;
    struct in_addr prefix4;
    struct in6_addr prefix6;
  } u __attribute__ ((aligned (8)));
};
struct bgp_table { struct bgp_node *top; };
struct bgp_node
{
  struct prefix p;
  struct bgp_table *table;
  struct bgp_node *parent;
  struct bgp_node *link[2];
  void **info;
  unsigned int lock;
};
struct bgp_info { struct bgp_info *next; struct bgp_info *prev; };
struct bgp_peer { int idx; int fd; int lock; int type; };
struct node_match_cmp_term2;
struct bgp_node_vector_entry {
  struct prefix *p;
  struct bgp_info *info;
};
struct bgp_node_vector {
  u_int8_t entries;
  struct bgp_node_vector_entry v[BGP_NODE_VECTOR_MAX_DEPTH];
};
struct bgp_misc_structs { int table_per_peer_buckets; int table_per_peer_hash; };
struct configuration { int debug; };
extern struct configuration config;
struct bgp_misc_structs *bgp_select_misc_db(int peer_type);
void bgp_lock_node(struct bgp_peer *peer, struct bgp_node *node);
void bgp_node_vector_debug(struct bgp_node_vector *bnv, struct prefix *p);
//@extract pmacct/src/bgp/bgp_prefix.c maskbit prefix_match
//@extract pmacct/src/bgp/bgp_table.c check_bit bgp_node_match
