/*
 * Static next-hop rewriter: looks the destination address up in a
 * longest-prefix table loaded from configuration and rewrites the
 * Ethernet addresses to the chosen next hop. Nothing is learnt from traffic.
 */
#include <stdint.h>
#include <string.h>
#include "router.h"

struct route {
	uint32_t prefix;
	uint32_t mask;
	uint8_t plen;
	uint8_t port;
	uint8_t mac[6];
};

static struct route routes[MAX_ROUTES];
static int n_routes;
static uint8_t my_mac[6];
static unsigned long no_route;

int
router_add_route(uint32_t prefix, uint8_t plen, uint8_t port, const uint8_t mac[6])
{
	if (n_routes >= MAX_ROUTES)
		return -1;
	routes[n_routes].mask = plen ? 0xffffffffu << (32 - plen) : 0;
	routes[n_routes].prefix = prefix & routes[n_routes].mask;
	routes[n_routes].plen = plen;
	routes[n_routes].port = port;
	memcpy(routes[n_routes].mac, mac, 6);
	n_routes++;
	return 0;
}

int
route_packet(uint8_t *pkt, uint32_t len)
{
	const struct route *best = NULL;
	uint32_t dst;

	if (len < 34 || pkt[12] != 0x08 || pkt[13] != 0x00)
		return -1;
	dst = (uint32_t)pkt[30] << 24 | (uint32_t)pkt[31] << 16 | (uint32_t)pkt[32] << 8 | pkt[33];
	for (int i = 0; i < n_routes; i++) {
		if ((dst & routes[i].mask) == routes[i].prefix && (!best || routes[i].plen > best->plen))
			best = &routes[i];
	}
	if (!best) {
		no_route++;
		return -1;
	}
	memcpy(pkt, best->mac, 6);
	memcpy(pkt + 6, my_mac, 6);
	return best->port;
}
