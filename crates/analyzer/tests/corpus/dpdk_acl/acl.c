/*
 * Sequential first-match IPv4 ACL for a DPDK pipeline stage. Rules are
 * loaded from a file at start-up; the fast path only reads them and bumps a
 * global drop counter.
 */
#include <stdio.h>
#include <rte_mbuf.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_udp.h>
#include <rte_byteorder.h>

#define ACL_MAX_RULES 1024

struct acl_rule {
	uint32_t src, src_mask;
	uint32_t dst, dst_mask;
	uint16_t dport_lo, dport_hi;
	uint8_t proto; /* 0 = any */
	uint8_t deny;
};

static struct acl_rule rules[ACL_MAX_RULES];
static unsigned n_rules;
static uint64_t acl_dropped;

int
acl_load(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	while (n_rules < ACL_MAX_RULES && fscanf(f, "%x %x %x %x %hu %hu %hhu %hhu",
		&rules[n_rules].src, &rules[n_rules].src_mask, &rules[n_rules].dst, &rules[n_rules].dst_mask,
		&rules[n_rules].dport_lo, &rules[n_rules].dport_hi, &rules[n_rules].proto, &rules[n_rules].deny) == 8)
		n_rules++;
	fclose(f);
	return 0;
}

static inline int
acl_match(const struct acl_rule *r, uint32_t src, uint32_t dst, uint8_t proto, uint16_t dport)
{
	return (src & r->src_mask) == r->src && (dst & r->dst_mask) == r->dst &&
	       (r->proto == 0 || r->proto == proto) && dport >= r->dport_lo && dport <= r->dport_hi;
}

int
acl_filter(struct rte_mbuf *m)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, sizeof(struct rte_ether_hdr));
	uint32_t src = rte_be_to_cpu_32(ip->src_addr);
	uint32_t dst = rte_be_to_cpu_32(ip->dst_addr);
	uint16_t dport = 0;

	if (ip->next_proto_id == IPPROTO_TCP || ip->next_proto_id == IPPROTO_UDP) {
		struct rte_udp_hdr *uh = (struct rte_udp_hdr *)((unsigned char *)ip + (ip->version_ihl & 0xf) * 4);
		dport = rte_be_to_cpu_16(uh->dst_port);
	}
	for (unsigned i = 0; i < n_rules; i++) {
		if (acl_match(&rules[i], src, dst, ip->next_proto_id, dport)) {
			if (rules[i].deny) {
				acl_dropped++;
				return -1;
			}
			return 0;
		}
	}
	return 0;
}
