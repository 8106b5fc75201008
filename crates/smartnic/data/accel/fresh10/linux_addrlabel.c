/* Fresh10 held-out set: Linux 6.1.4's net/ipv6/addrlabel.c, the RFC 6724
 * address-selection policy table: __ip6addrlbl_add keeps the table's list
 * sorted by decreasing prefix length (a sorted insert: none), and
 * __ipv6_addr_label returns the first entry of that list whose prefix
 * (and interface and type) match — the longest matching prefix, by the
 * order the insert keeps (lpm, a hard case: the order is established by
 * another function); __ip6addrlbl_match is the per-entry test. Verbatim
 * (extracted at bench time from $NFC_CORPUS_DIR); the entry struct is
 * addrlabel.c's, struct net reduced to the table, ipv6_prefix_equal and
 * the list primitives written here as macros (include/net/ipv6.h,
 * rculist.h). */
#include "kshim.h"
#define EEXIST 17
#define KERN_DEBUG ""
#define ADDRLABEL(x...) do { ; } while (0)
struct in6_addr { union { __u8 u6_addr8[16]; __be32 u6_addr32[4]; } in6_u; };
#define s6_addr in6_u.u6_addr8
struct ip6addrlbl_entry {
	struct in6_addr prefix;
	int prefixlen;
	int ifindex;
	int addrtype;
	u32 label;
	struct hlist_node list;
	struct rcu_head rcu;
};
struct net { struct { struct { struct hlist_head head; int lock; u32 seq; } ip6addrlbl_table; } ipv6; };
/* include/net/ipv6.h's prefix test: whole bytes, then the masked rest. */
#define ipv6_prefix_equal(a1, a2, plen) \
	(memcmp((a1)->s6_addr, (a2)->s6_addr, (plen) / 8) == 0 && \
	 ((plen) % 8 == 0 || \
	  (((a1)->s6_addr[(plen) / 8] ^ (a2)->s6_addr[(plen) / 8]) & (0xff00 >> ((plen) % 8))) == 0))
#define ipv6_addr_equal(a1, a2) (memcmp((a1), (a2), sizeof(struct in6_addr)) == 0)
#define hlist_for_each_entry_safe(pos, n, head, member) \
	for (pos = hlist_entry_safe((head)->first, __typeof__(*pos), member); \
	     pos && ({ n = pos->member.next; 1; }); \
	     pos = hlist_entry_safe(n, __typeof__(*pos), member))
#define hlist_replace_rcu(old, new) do { (new)->next = (old)->next; (new)->pprev = (old)->pprev; *(new)->pprev = (new); if ((new)->next) (new)->next->pprev = &(new)->next; } while (0)
#define hlist_add_before_rcu(n, next_) do { (n)->pprev = (next_)->pprev; (n)->next = (next_); (next_)->pprev = &(n)->next; *(n)->pprev = (n); } while (0)
#define hlist_add_behind_rcu(n, prev) do { (n)->next = (prev)->next; (prev)->next = (n); (n)->pprev = &(prev)->next; if ((n)->next) (n)->next->pprev = &(n)->next; } while (0)
#define hlist_add_head_rcu(n, h) do { (n)->next = (h)->first; (n)->pprev = &(h)->first; if ((h)->first) (h)->first->pprev = &(n)->next; (h)->first = (n); } while (0)
#define kfree_rcu(p, f) ((void)(p))
//@extract linux/net/ipv6/addrlabel.c __ip6addrlbl_match __ipv6_addr_label __ip6addrlbl_add
/* All three are static: called here so that -O0 emits them. */
u32 wrap_ipv6_addr_label(struct net *net, const struct in6_addr *a, int type, int ifindex,
			 struct ip6addrlbl_entry *newp)
{
	struct ip6addrlbl_entry *p;

	__ip6addrlbl_add(net, newp, 0);
	p = __ipv6_addr_label(net, a, type, ifindex);
	return p ? p->label : 0xffffffff;
}
