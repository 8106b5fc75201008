/* SPDX-License-Identifier: BSD-3-Clause
 * Per-flow statistics application: counts packets and bytes per IPv4 5-tuple
 * using an rte_hash whose positions index a flat statistics array.
 */
#include <stdint.h>
#include <inttypes.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_udp.h>
#include <rte_hash.h>
#include <rte_jhash.h>

#define MAX_FLOWS (1 << 20)
#define BURST_SIZE 32

struct flow_key {
	uint32_t ip_src;
	uint32_t ip_dst;
	uint16_t port_src;
	uint16_t port_dst;
	uint8_t proto;
} __rte_packed;

struct flow_stat {
	uint64_t packets;
	uint64_t bytes;
	uint64_t last_tsc;
};

static struct rte_hash *flow_table;
static struct flow_stat flow_stats[MAX_FLOWS];
static uint64_t non_ip;

static int
flow_table_init(int socket)
{
	struct rte_hash_parameters p = {
		.name = "flows",
		.entries = MAX_FLOWS,
		.key_len = sizeof(struct flow_key),
		.hash_func = rte_jhash,
		.socket_id = socket,
	};
	flow_table = rte_hash_create(&p);
	return flow_table == NULL ? -1 : 0;
}

static inline void
extract_key(struct rte_ipv4_hdr *ip, struct flow_key *k)
{
	memset(k, 0, sizeof(*k));
	k->ip_src = rte_be_to_cpu_32(ip->src_addr);
	k->ip_dst = rte_be_to_cpu_32(ip->dst_addr);
	k->proto = ip->next_proto_id;
	if (ip->next_proto_id == IPPROTO_TCP) {
		struct rte_tcp_hdr *tcp = (struct rte_tcp_hdr *)(ip + 1);
		k->port_src = rte_be_to_cpu_16(tcp->src_port);
		k->port_dst = rte_be_to_cpu_16(tcp->dst_port);
	} else if (ip->next_proto_id == IPPROTO_UDP) {
		struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);
		k->port_src = rte_be_to_cpu_16(udp->src_port);
		k->port_dst = rte_be_to_cpu_16(udp->dst_port);
	}
}

static void
process_packet(struct rte_mbuf *m)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv4_hdr *ip;
	struct flow_key key;
	int32_t pos;

	if (eth->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4)) {
		non_ip++;
		return;
	}
	ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, sizeof(struct rte_ether_hdr));
	extract_key(ip, &key);
	pos = rte_hash_lookup(flow_table, &key);
	if (pos < 0) {
		pos = rte_hash_add_key(flow_table, &key);
		if (pos < 0)
			return;
	}
	flow_stats[pos].packets++;
	flow_stats[pos].bytes += rte_pktmbuf_pkt_len(m);
	flow_stats[pos].last_tsc = rte_rdtsc();
}

static int
lcore_main(void *arg)
{
	uint16_t port = *(uint16_t *)arg;
	struct rte_mbuf *bufs[BURST_SIZE];

	for (;;) {
		uint16_t n = rte_eth_rx_burst(port, 0, bufs, BURST_SIZE);
		for (uint16_t i = 0; i < n; i++)
			process_packet(bufs[i]);
		uint16_t sent = rte_eth_tx_burst(port ^ 1, 0, bufs, n);
		for (uint16_t i = sent; i < n; i++)
			rte_pktmbuf_free(bufs[i]);
	}
	return 0;
}

int
main(int argc, char **argv)
{
	uint16_t port = 0;
	if (rte_eal_init(argc, argv) < 0)
		rte_exit(EXIT_FAILURE, "EAL init failed\n");
	if (flow_table_init(rte_socket_id()) < 0)
		rte_exit(EXIT_FAILURE, "cannot create flow table\n");
	lcore_main(&port);
	return 0;
}
