/* Fresh5 held-out set: TAYGA 0.9.2's NAT64 address maps, verbatim
 * (extracted at bench time from $NFC_CORPUS_DIR): addrmap.c's find_map4
 * and find_map6 (the first map whose network covers the address, in
 * lists that insert_map4/insert_map6 keep sorted by decreasing prefix
 * length: the longest match), its cache hashes hash_ip4 (one multiply by
 * a random key) and hash_ip6 (products of 16-bit words plus keys), and
 * nat64.c's ip_checksum (Internet checksum with carry folds) and ones_add.
 * Types are tayga.h's and list.h's reduced to the fields used; the list
 * macros and IN6_IS_IN_NET are their definitions. */
#include <stdint.h>
#include <stddef.h>
struct in_addr { uint32_t s_addr; };
struct in6_addr {
	union {
		uint8_t s6_addr[16];
		uint16_t s6_addr16[8];
		uint32_t s6_addr32[4];
	};
};
#define s6_addr16 s6_addr16
struct list_head {
	struct list_head *next;
	struct list_head *prev;
};
#define list_entry(x, type, field) ({ \
		const typeof( ((type *)0)->field ) *__mptr = (x); \
		(type *)( (char *)__mptr - offsetof(type, field) );})
#define list_for_each(x, head) \
	for (x = (head)->next; x != (head); x = x->next)
#define IN6_IS_IN_NET(addr,net,mask) \
		((net)->s6_addr32[0] == ((addr)->s6_addr32[0] & \
						(mask)->s6_addr32[0]) && \
		 (net)->s6_addr32[1] == ((addr)->s6_addr32[1] & \
			 			(mask)->s6_addr32[1]) && \
		 (net)->s6_addr32[2] == ((addr)->s6_addr32[2] & \
			 			(mask)->s6_addr32[2]) && \
		 (net)->s6_addr32[3] == ((addr)->s6_addr32[3] & \
			 			(mask)->s6_addr32[3]))
#define htons(x) __builtin_bswap16(x)
struct map4 {
	struct in_addr addr;
	struct in_addr mask;
	int prefix_len;
	int type;
	struct list_head list;
};
struct map6 {
	struct in6_addr addr;
	struct in6_addr mask;
	int prefix_len;
	int type;
	struct list_head list;
};
struct config {
	struct list_head map4_list;
	struct list_head map6_list;
	uint32_t rand[8];
	int hash_bits;
};
extern struct config *gcfg;
//@extract tayga/addrmap.c hash_ip4 hash_ip6 find_map4 find_map6
//@extract tayga/nat64.c ip_checksum ones_add
/* Static functions are emitted only when called. */
uint32_t wrap_hash_ip4(const struct in_addr *a) { return hash_ip4(a); }
uint32_t wrap_hash_ip6(const struct in6_addr *a) { return hash_ip6(a); }
uint16_t wrap_ip_checksum(void *d, int c) { return ip_checksum(d, c); }
uint16_t wrap_ones_add(uint16_t a, uint16_t b) { return ones_add(a, b); }
