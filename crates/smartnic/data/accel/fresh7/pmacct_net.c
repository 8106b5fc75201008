/* Fresh7 held-out set: pmacct 1.7.8's networks lookup (src/net_aggr.c):
 * binsearch/binsearch6, a binary search of the sorted networks table on
 * the masked address, and on a hit a recursive search of that network's
 * table of more specific children, the most specific match returned (and
 * cached); the one-slot result cache (networks_cache_search/_insert and
 * the IPv6 variants, exact key compare) and its jhash-mix key hash
 * networks_cache_hash6, verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR). The byte-order helper stays external; the structs
 * are net_aggr.h's and addr.h's. */
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <netinet/in.h>
#include <arpa/inet.h>
typedef uint8_t u_int8_t;
typedef uint32_t u_int32_t;
typedef uint32_t as_t;
#define IP6AddrSz 16
#define JHASH_GOLDEN_RATIO	0x9e3779b9
#define __jhash_mix(a, b, c) \
{ \
  a -= b; a -= c; a ^= (c>>13); \
  b -= c; b -= a; b ^= (a<<8); \
  c -= a; c -= b; c ^= (b>>13); \
  a -= b; a -= c; a ^= (c>>12);  \
  b -= c; b -= a; b ^= (a<<16); \
  c -= a; c -= b; c ^= (b>>5); \
  a -= b; a -= c; a ^= (c>>3);  \
  b -= c; b -= a; b ^= (a<<10); \
  c -= a; c -= b; c ^= (b>>15); \
}
struct host_addr {
  u_int8_t family;
  union {
    struct in_addr ipv4;
    struct in6_addr ipv6;
  } address;
};
struct networks_cache_entry {
  u_int32_t key;
  struct networks_table_entry *result;
};
struct networks_cache {
  struct networks_cache_entry *cache;
  unsigned int num;
  struct networks6_cache_entry *cache6;
  unsigned int num6;
};
struct networks_table {
  struct networks_table_entry *table;
  unsigned int num;
  struct networks6_table_entry *table6;
  unsigned int num6;
  u_int32_t maskbits[4];
  time_t timestamp;
};
struct networks_table_entry {
  u_int32_t net;
  u_int32_t mask;
  u_int8_t masknum;
  as_t peer_as;
  as_t as;
  struct host_addr nh;
  struct networks_table childs_table;
};
struct networks6_cache_entry {
  u_int32_t key[4];
  struct networks6_table_entry *result;
};
struct networks6_table_entry {
  u_int32_t net[4];
  u_int32_t mask[4];
  u_int8_t masknum;
  as_t peer_as;
  as_t as;
  struct host_addr nh;
  struct networks_table childs_table;
};
struct networks_table_entry dummy_entry;
struct networks6_table_entry dummy_entry6;
extern void *pm_ntohl6(void *);
struct networks_table_entry *networks_cache_search(struct networks_cache *, u_int32_t *);
void networks_cache_insert(struct networks_cache *, u_int32_t *, struct networks_table_entry *);
struct networks6_table_entry *networks_cache_search6(struct networks_cache *, void *);
void networks_cache_insert6(struct networks_cache *, void *, struct networks6_table_entry *);
unsigned int networks_cache_hash6(void *);
//@extract pmacct/src/net_aggr.c binsearch networks_cache_insert networks_cache_search binsearch6 networks_cache_insert6 networks_cache_search6 networks_cache_hash6
