/* Fresh3 held-out set: OpenVPN 2.6.14's server-mode route lookup
 * (src/openvpn/multi.c's multi_get_instance_by_virtual_addr: a host-route
 * hash lookup, then one hash lookup per configured CIDR length, longest
 * first, with the address masked to it) and multi.h's route validity
 * check, verbatim (extracted at bench time from $NFC_CORPUS_DIR). Types
 * and constants are OpenVPN's (mroute.h, multi.h, proto.h) reduced to the
 * fields used; the hash table and the mroute helpers stay external. The
 * wrapper makes the static function appear. */
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <time.h>
#include <netinet/in.h>
#define MR_MAX_ADDR_LEN 20
#define MR_HELPER_NET_LEN 129
#define OPENVPN_ETH_ALEN 6
#define MR_WITH_NETBITS 8
#define MULTI_ROUTE_CACHE   (1<<0)
#define MULTI_ROUTE_AGEABLE (1<<1)
void assert_failed(const char *filename, int line, const char *condition);
#define ASSERT(x) do { if (!(x)) {assert_failed(__FILE__, __LINE__, #x);}} while (false)
struct mroute_addr {
    uint8_t len;
    uint8_t unused;
    uint8_t type;
    uint8_t netbits;
    union {
        uint8_t raw_addr[MR_MAX_ADDR_LEN];
        struct { uint8_t addr[OPENVPN_ETH_ALEN]; uint16_t vid; } ether;
        struct { in_addr_t addr; in_port_t port; } v4;
        struct { struct in6_addr addr; in_port_t port; } v6;
        struct { uint8_t prefix[12]; in_addr_t addr; } v4mappedv6;
    };
};
struct mroute_helper {
    unsigned int cache_generation;
    int ageable_ttl_secs;
    int n_net_len;
    uint8_t net_len[MR_HELPER_NET_LEN];
    int net_len_refcount[MR_HELPER_NET_LEN];
};
struct multi_instance { bool halt; };
struct multi_route {
    struct mroute_addr addr;
    struct multi_instance *instance;
    unsigned int flags;
    unsigned int cache_generation;
    time_t last_reference;
};
struct hash;
struct multi_context {
    struct hash *vhash;
    struct mroute_addr local;
    struct mroute_helper *route_helper;
};
extern time_t now;
void *hash_lookup(struct hash *hash, const void *key);
bool mroute_addr_equal(const struct mroute_addr *a1, const struct mroute_addr *a2);
void mroute_addr_mask_host_bits(struct mroute_addr *ma);
struct multi_instance *multi_learn_addr(struct multi_context *m, struct multi_instance *mi,
                                        const struct mroute_addr *addr, const unsigned int flags);
//@extract openvpn/src/openvpn/multi.h multi_route_defined
//@extract openvpn/src/openvpn/multi.c multi_get_instance_by_virtual_addr
struct multi_instance *wrap_get(struct multi_context *m, const struct mroute_addr *a, bool c) { return multi_get_instance_by_virtual_addr(m, a, c); }
