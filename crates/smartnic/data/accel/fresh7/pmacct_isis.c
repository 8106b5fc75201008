/* Fresh7 held-out set: pmacct 1.7.8's IS-IS code (src/isis/, from
 * Quagga): the routing table's longest match route_node_match (walk down
 * the binary radix tree on the address bits while the node's prefix
 * contains the key, keeping the last node with a route) and the exact
 * lookup route_node_lookup, with their helpers (prefix.c's
 * isis_prefix_match and maskbit table, prefix.h's inline prefix_bit,
 * table.c's route_lock_node), and the ISO (Fletcher) checksum
 * fletcher_checksum (checksum.c), verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR). The structs are table.h's and prefix.h's. */
#include <stdint.h>
#include <stddef.h>
#include <assert.h>
#include <netinet/in.h>
typedef unsigned char u_char;
typedef uint8_t u_int8_t;
typedef uint16_t u_int16_t;
#define PNBBY 8
#define MODX                 4102   /* 5802 should be fine */
#define MIN(a, b) ((a) < (b) ? (a) : (b))
struct isis_prefix
{
  u_char family;
  u_char prefixlen;
  union
  {
    u_char prefix;
    struct in_addr prefix4;
    struct in6_addr prefix6;
    u_char val[8];
  } u __attribute__ ((aligned (8)));
  struct in_addr adv_router;
};
struct route_table
{
  struct route_node *top;
};
struct route_node
{
  struct isis_prefix p;
  struct route_table *table;
  struct route_node *parent;
  struct route_node *link[2];
  unsigned int lock;
  void *info;
  void *aggregate;
};
//@extract pmacct/src/isis/prefix.c maskbit isis_prefix_match
//@extract pmacct/src/isis/prefix.h prefix_bit
//@extract pmacct/src/isis/table.c route_lock_node route_node_match route_node_lookup
//@extract pmacct/src/isis/checksum.c fletcher_checksum
