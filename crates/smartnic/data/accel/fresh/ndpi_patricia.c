/* Fresh held-out set: nDPI 4.2 src/lib/third_party/src/ndpi_patricia.c
 * (the MRT Patricia tree), its prefix searches, verbatim (extracted at
 * bench time from $NFC_CORPUS_DIR); types and macros copied from nDPI's
 * ndpi_patricia_typedefs.h and ndpi_patricia.h. */
#include <stdint.h>
#include <stddef.h>
typedef unsigned char u_char;
typedef unsigned int u_int;
typedef uint8_t u_int8_t;
typedef uint16_t u_int16_t;
typedef uint32_t u_int32_t;
typedef uint64_t u_int64_t;
#define assert(x) ((void)0)
#define AF_INET 2
#define AF_INET6 10
#define AF_MAC 99
static inline uint32_t htonl(uint32_t x) { return __builtin_bswap32(x); }
struct in_addr { uint32_t s_addr; };
struct in6_addr { uint8_t s6_addr[16]; };
union ndpi_patricia_node_value_t {
  union {
    struct { u_int32_t user_value, additional_user_value; } uv32;
    u_int64_t uv64;
    void *user_data;
  } u;
};
typedef struct _ndpi_prefix_t {
  u_int16_t family;
  u_int16_t bitlen;
  int ref_count;
  union {
    struct in_addr sin;
    struct in6_addr sin6;
    u_int8_t mac[6];
  } add;
} ndpi_prefix_t;
typedef struct _ndpi_patricia_node_t {
  u_int16_t bit;
  ndpi_prefix_t *prefix;
  struct _ndpi_patricia_node_t *l, *r;
  struct _ndpi_patricia_node_t *parent;
  void *data;
  union ndpi_patricia_node_value_t value;
} ndpi_patricia_node_t;
typedef struct _ndpi_patricia_tree_t {
  ndpi_patricia_node_t 	*head;
  u_int16_t		maxbits;
  int num_active_node;
} ndpi_patricia_tree_t;
#define ndpi_prefix_touchar(prefix) ((u_char *)&(prefix)->add.sin)
#define BIT_TEST(f, b)  ((f) & (b))
#define PATRICIA_MAXBITS	128
//@extract ndpi/src/lib/third_party/src/ndpi_patricia.c ndpi_prefix_tochar ndpi_comp_with_mask ndpi_patricia_search_exact ndpi_patricia_search_best2
