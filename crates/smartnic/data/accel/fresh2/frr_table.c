/* Fresh2 held-out set: FRR 8.4.4 lib/table.c's route lookup in its binary
 * prefix tree and the lib/prefix.c helpers it calls, verbatim (extracted
 * at bench time from $NFC_CORPUS_DIR). The structures are FRR's
 * (lib/prefix.h, lib/table.h) reduced to the fields these functions use. */
#include <stdint.h>
#include <stddef.h>
#define PNBBY 8
#define AF_INET 2
#define AF_FLOWSPEC 47
#define IPV4_MAX_BITLEN 32
struct in_addr { uint32_t s_addr; };
struct flowspec_prefix { uint8_t family; uint16_t prefixlen; uintptr_t ptr; };
struct prefix {
	uint8_t family;
	uint16_t prefixlen;
	union {
		uint8_t prefix;
		struct in_addr prefix4;
		uint8_t val[16];
		struct flowspec_prefix prefix_flowspec;
	} u __attribute__((aligned(8)));
};
union prefixconstptr { const struct prefix *p; } __attribute__((transparent_union));
static const uint8_t maskbit[] = {0x00, 0x80, 0xc0, 0xe0, 0xf0, 0xf8, 0xfc, 0xfe, 0xff};
struct route_table;
struct route_node {
	struct prefix p;
	struct route_table *table;
	struct route_node *parent;
	struct route_node *link[2];
	unsigned int lock;
	void *info;
};
struct route_table { struct route_node *top; unsigned long count; };
//@extract frr/lib/prefix.c prefix_bit prefix_match
//@extract frr/lib/table.h route_lock_node
//@extract frr/lib/table.c route_node_match
