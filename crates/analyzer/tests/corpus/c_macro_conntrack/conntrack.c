/*
 * conntrack.c - a tiny bidirectional connection tracker for a bare-metal
 * packet loop. Field access goes through macros over the raw frame; both
 * directions of a connection are folded onto one canonical key so replies
 * find the entry created by the first packet. Entries are chained through
 * `next` pointers from a bucket array.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "pktio.h"

#define ETH_LEN 14
#define IPH(p)      ((struct iphdr *)((p) + ETH_LEN))
#define L4PORTS(p)  ((uint16_t *)((p) + ETH_LEN + ((IPH(p)->ihl) << 2)))
#define SRC_PORT(p) (ntohs(L4PORTS(p)[0]))
#define DST_PORT(p) (ntohs(L4PORTS(p)[1]))
#define CT_BUCKETS  8192
#define CT_HASH(a, b, c, d) (((a) ^ (b) ^ ((uint32_t)(c) << 16 | (d))) % CT_BUCKETS)

struct ct_key {
	uint32_t lo_ip, hi_ip;
	uint16_t lo_port, hi_port;
	uint8_t proto;
};

struct ct_entry {
	struct ct_key key;
	uint64_t last_seen;
	uint32_t packets;
	uint8_t state;
	struct ct_entry *next;
};

static struct ct_entry *ct_table[CT_BUCKETS];

static void
ct_make_key(const uint8_t *pkt, struct ct_key *k)
{
	uint32_t s = ntohl(IPH(pkt)->saddr), d = ntohl(IPH(pkt)->daddr);
	uint16_t sp = SRC_PORT(pkt), dp = DST_PORT(pkt);
	memset(k, 0, sizeof(*k));
	k->proto = IPH(pkt)->protocol;
	if (s < d || (s == d && sp < dp)) {
		k->lo_ip = s; k->hi_ip = d; k->lo_port = sp; k->hi_port = dp;
	} else {
		k->lo_ip = d; k->hi_ip = s; k->lo_port = dp; k->hi_port = sp;
	}
}

int
ct_packet(uint8_t *pkt, uint32_t len, uint64_t now)
{
	struct ct_key k;
	struct ct_entry *e;
	uint32_t h;

	if (len < ETH_LEN + sizeof(struct iphdr))
		return PKT_PASS;
	ct_make_key(pkt, &k);
	h = CT_HASH(k.lo_ip, k.hi_ip, k.lo_port, k.hi_port);
	for (e = ct_table[h]; e != NULL; e = e->next)
		if (memcmp(&e->key, &k, sizeof(k)) == 0)
			break;
	if (e == NULL) {
		e = calloc(1, sizeof(*e));
		if (!e)
			return PKT_DROP;
		e->key = k;
		e->next = ct_table[h];
		ct_table[h] = e;
	}
	e->last_seen = now;
	e->packets++;
	return PKT_PASS;
}
