/* Fresh2 held-out set: BIRD 2.0.12 filter/trie.c's longest-prefix match in
 * its multibit prefix trie (the IPv4 variant), with the lib/ip.h and
 * lib/bitops.c helpers it calls, nest/rt-fib.c's FIB routing lookups
 * (exact lookups of ever shorter prefixes), and lib/checksum.c's Internet checksum
 * block, verbatim (extracted at bench time from $NFC_CORPUS_DIR). Types,
 * constants and structures are BIRD's (lib/ip.h, lib/net.h, filter/data.h,
 * the non-compact 16-way tries), reduced to the fields used. */
#include <stdint.h>
#include <stddef.h>
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef unsigned int uint;
typedef u32 ip4_addr;
#define _I(x) (x)
#define _MI4(x) ((u32) (x))
#define IP4_NONE _MI4(0)
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define ASSERT(x) do { } while (0)
#define TRIE_STEP 4
#define IP4_MAX_PREFIX_LENGTH 32
#define NET_IP4 1
typedef struct net_addr_ip4 { u8 type; u8 pxlen; u16 length; ip4_addr prefix; } net_addr_ip4;
#define NET_ADDR_IP4(prefix,pxlen) \
  ((net_addr_ip4) { NET_IP4, pxlen, sizeof(net_addr_ip4), prefix })
typedef struct ip6_addr { u32 addr[4]; } ip6_addr;
typedef struct net_addr_ip6 { u8 type; u8 pxlen; u16 length; ip6_addr prefix; } net_addr_ip6;
typedef struct net_addr { u8 type; u8 pxlen; u16 length; u8 data[20]; } net_addr;
struct fib;
void *fib_find(struct fib *, const net_addr *);
struct f_trie_node4 {
  ip4_addr addr, mask, accept;
  u16 plen;
  u16 local;
  struct f_trie_node4 *c[1 << TRIE_STEP];
};
struct f_trie_node { union { struct f_trie_node4 v4; }; };
struct f_trie { void *lp; u8 zero; s8 ipv4; u16 data_size; u32 prefix_count; struct f_trie_node root; };
//@extract bird2/lib/bitops.c u32_mkmask
//@extract bird2/lib/ip.h ip4_and ip4_mkmask ip4_prefix_equal ip4_getbit ip4_getbits ip4_setbit ip4_clrbit ip6_clrbit
//@extract bird2/filter/trie.c trie_match_longest_ip4
//@extract bird2/nest/rt-fib.c fib_route_ip4 fib_route_ip6
//@extract bird2/lib/checksum.c add32 ipsum_calc_block
void *wrap_route4(struct fib *f, net_addr_ip4 *n) { return fib_route_ip4(f, n); }
void *wrap_route6(struct fib *f, net_addr_ip6 *n) { return fib_route_ip6(f, n); }
u16 wrap_ipsum(u32 *b, uint n, u16 s) { return ipsum_calc_block(b, n, s); }
