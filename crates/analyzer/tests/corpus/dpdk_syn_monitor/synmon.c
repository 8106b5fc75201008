/*
 * SYN flood monitor: counts TCP SYNs per destination address in a
 * direct-mapped table and drops SYNs to destinations over budget.
 * Non-SYN packets only read the table.
 */
#include <rte_mbuf.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_cycles.h>

#define SYNMON_SLOTS 65536
#define SYNMON_MASK (SYNMON_SLOTS - 1)

struct syn_slot {
	uint32_t dst;
	uint32_t syns;
	uint64_t window_start;
};

static struct syn_slot syn_table[SYNMON_SLOTS];
static uint32_t syn_budget = 10000;
static uint64_t window_cycles;

void
synmon_configure(uint32_t budget, uint64_t hz)
{
	syn_budget = budget;
	window_cycles = hz;
}

int
synmon_process(struct rte_mbuf *pkt, uint64_t now)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(pkt, struct rte_ether_hdr *);
	struct rte_ipv4_hdr *iph = (struct rte_ipv4_hdr *)(eth + 1);
	struct rte_tcp_hdr *th;
	uint32_t dst;
	struct syn_slot *s;

	if (iph->next_proto_id != IPPROTO_TCP)
		return 0;
	th = (struct rte_tcp_hdr *)((uint8_t *)iph + sizeof(struct rte_ipv4_hdr));
	dst = rte_be_to_cpu_32(iph->dst_addr);
	s = &syn_table[dst & SYNMON_MASK];
	if (th->tcp_flags & RTE_TCP_SYN_FLAG) {
		if (s->dst != dst || now - s->window_start > window_cycles) {
			s->dst = dst;
			s->syns = 0;
			s->window_start = now;
		}
		s->syns++;
		return s->syns > syn_budget ? -1 : 0;
	}
	return 0;
}
