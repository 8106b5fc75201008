/*
 * Layer-4 load balancer: new TCP/UDP connections are assigned to a backend
 * by hashing the 5-tuple; the choice is pinned in a connection table so
 * later packets of the connection reuse it even when the backend set changes.
 */
#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include "lb.h"

struct lb_conf lb_conf;

struct conn_key {
	uint32_t saddr, daddr;
	uint16_t sport, dport;
	uint8_t proto;
	uint8_t pad[3];
};

struct conn_entry {
	uint32_t backend;
	uint32_t created_s;
};

static struct rte_hash *conn_hash;
static struct conn_entry *conn_entries;

int
lb_init(unsigned capacity)
{
	struct rte_hash_parameters hp = { .name = "conns", .entries = capacity,
		.key_len = sizeof(struct conn_key), .hash_func = rte_hash_crc };
	conn_hash = rte_hash_create(&hp);
	conn_entries = rte_zmalloc("conn", capacity * sizeof(struct conn_entry), 0);
	return conn_hash && conn_entries ? 0 : -1;
}

static uint32_t
pick_backend(const struct conn_key *k)
{
	uint32_t h = rte_hash_crc(k, sizeof(*k), 0);
	return lb_conf.backends[h % lb_conf.n_backends].addr;
}

uint16_t
lb_handle(struct rte_mbuf *m)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	struct rte_tcp_hdr *l4 = (struct rte_tcp_hdr *)((char *)ip + rte_ipv4_hdr_len(ip));
	struct conn_key key = {
		.saddr = ip->src_addr,
		.daddr = ip->dst_addr,
		.sport = l4->src_port,
		.dport = l4->dst_port,
		.proto = ip->next_proto_id,
	};
	struct conn_entry *e = NULL;
	int ret = rte_hash_lookup_data(conn_hash, &key, (void **)&e);
	if (ret < 0) {
		int pos = rte_hash_add_key(conn_hash, &key);
		if (pos < 0)
			return LB_DROP;
		e = &conn_entries[pos];
		e->backend = pick_backend(&key);
		e->created_s = (uint32_t)(rte_get_tsc_cycles() / rte_get_tsc_hz());
		rte_hash_add_key_data(conn_hash, &key, e);
	}
	ip->dst_addr = e->backend;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	return LB_FORWARD;
}
