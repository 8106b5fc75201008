/* Fresh12 held-out set: GRUB 2.06's grub-core/net: net.c match_net
 * (whether an address lies in one network: masked compare, IPv4 or IPv6),
 * route_cmp (orders two routes by address type, then prefix length) and
 * grub_net_route_address (the route for an address: over the route list,
 * the matching route with the longest prefix kept best-so-far through
 * route_cmp, then, for a gateway route, the gateway routed again: a
 * longest-prefix match, resolved recursively), and ip.c
 * grub_net_ip_chksum (the Internet checksum: 16-bit one's-complement sum,
 * folded by subtraction, complemented). Verbatim (extracted at bench time
 * from $NFC_CORPUS_DIR); the address and route types are
 * include/grub/net.h's declarations, FOR_NET_ROUTES its macro, the
 * error codes, byte-order helpers (little-endian) and grub_error are
 * declared or written here. */
#include <stddef.h>
#include <stdint.h>
typedef uint8_t grub_uint8_t;
typedef uint16_t grub_uint16_t;
typedef uint32_t grub_uint32_t;
typedef uint64_t grub_uint64_t;
typedef size_t grub_size_t;
typedef int grub_err_t;
#define GRUB_ERR_NONE 0
#define GRUB_ERR_NET_NO_ROUTE 34
#define GRUB_ERR_NET_ROUTE_LOOP 35
#define GRUB_UINT_MAX 4294967295U
#define N_(s) s
grub_err_t grub_error (grub_err_t n, const char *fmt, ...);
#define grub_be_to_cpu16(x) __builtin_bswap16 (x)
#define grub_cpu_to_be16(x) __builtin_bswap16 (x)
#define grub_be_to_cpu32(x) __builtin_bswap32 (x)
#define grub_be_to_cpu64(x) __builtin_bswap64 (x)
static inline grub_uint16_t grub_get_unaligned16 (const void *p)
{
  grub_uint16_t v;
  __builtin_memcpy (&v, p, sizeof v);
  return v;
}
typedef enum grub_network_level_protocol_id
{
  GRUB_NET_NETWORK_LEVEL_PROTOCOL_DHCP_RECV,
  GRUB_NET_NETWORK_LEVEL_PROTOCOL_IPV4,
  GRUB_NET_NETWORK_LEVEL_PROTOCOL_IPV6
} grub_network_level_protocol_id_t;
typedef enum
{
  DNS_OPTION_IPV4,
  DNS_OPTION_IPV6,
  DNS_OPTION_PREFER_IPV4,
  DNS_OPTION_PREFER_IPV6
} grub_dns_option_t;
typedef struct grub_net_network_level_address
{
  grub_network_level_protocol_id_t type;
  union
  {
    grub_uint32_t ipv4;
    grub_uint64_t ipv6[2];
  };
  grub_dns_option_t option;
} grub_net_network_level_address_t;
typedef struct grub_net_network_level_netaddress
{
  grub_network_level_protocol_id_t type;
  union
  {
    struct {
      grub_uint32_t base;
      int masksize;
    } ipv4;
    struct {
      grub_uint64_t base[2];
      int masksize;
    } ipv6;
  };
} grub_net_network_level_netaddress_t;
struct grub_net_network_level_protocol;
struct grub_net_network_level_interface;
struct grub_net_route
{
  struct grub_net_route *next;
  struct grub_net_route **prev;
  grub_net_network_level_netaddress_t target;
  char *name;
  struct grub_net_network_level_protocol *prot;
  int is_gateway;
  struct grub_net_network_level_interface *interface;
  grub_net_network_level_address_t gw;
};
extern struct grub_net_route *grub_net_routes;
#define FOR_NET_ROUTES(var) for (var = grub_net_routes; var; var = var->next)
//@extract grub2/grub-core/net/net.c match_net route_cmp grub_net_route_address
//@extract grub2/grub-core/net/ip.c grub_net_ip_chksum
