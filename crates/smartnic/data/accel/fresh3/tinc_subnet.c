/* Fresh3 held-out set: tinc 1.0.36 src/subnet.c's subnet lookups (MAC:
 * exact match; IPv4 and IPv6: the first subnet covering the address in a
 * list sorted by prefix length, longest first) and src/netutl.c's masked
 * compare, verbatim (extracted at bench time from $NFC_CORPUS_DIR). Types
 * are tinc's (net.h, avl_tree.h, subnet.h, node.h) reduced to the fields
 * used; the two-entry lookup caches are subnet.c's. */
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>
typedef struct mac_t { uint8_t x[6]; } mac_t;
typedef struct ipv4_t { uint8_t x[4]; } ipv4_t;
typedef struct ipv6_t { uint16_t x[8]; } ipv6_t;
typedef struct avl_node_t {
	struct avl_node_t *next, *prev, *parent, *left, *right;
	void *data;
} avl_node_t;
typedef struct avl_tree_t { avl_node_t *head, *tail, *root; } avl_tree_t;
typedef struct node_status_t { unsigned int unused_active:1, validkey:1, unused_waitingforkey:1, visited:1, reachable:1, indirect:1, unused:26; } node_status_t;
typedef struct node_t { char *name; node_status_t status; avl_tree_t *subnet_tree; } node_t;
typedef enum subnet_type_t { SUBNET_MAC = 0, SUBNET_IPV4, SUBNET_IPV6, SUBNET_TYPES } subnet_type_t;
typedef struct subnet_mac_t { mac_t address; } subnet_mac_t;
typedef struct subnet_ipv4_t { ipv4_t address; int prefixlength; } subnet_ipv4_t;
typedef struct subnet_ipv6_t { ipv6_t address; int prefixlength; } subnet_ipv6_t;
typedef struct subnet_t {
	struct node_t *owner;
	subnet_type_t type;
	time_t expires;
	int weight;
	union net { subnet_mac_t mac; subnet_ipv4_t ipv4; subnet_ipv6_t ipv6; } net;
} subnet_t;
avl_tree_t *subnet_tree;
static ipv4_t cache_ipv4_address[2];
static subnet_t *cache_ipv4_subnet[2];
static bool cache_ipv4_valid[2];
static int cache_ipv4_slot;
static ipv6_t cache_ipv6_address[2];
static subnet_t *cache_ipv6_subnet[2];
static bool cache_ipv6_valid[2];
static int cache_ipv6_slot;
static mac_t cache_mac_address[2];
static subnet_t *cache_mac_subnet[2];
static bool cache_mac_valid[2];
static int cache_mac_slot;
//@extract tinc/src/netutl.c maskcmp
//@extract tinc/src/subnet.c lookup_subnet_mac lookup_subnet_ipv4 lookup_subnet_ipv6
