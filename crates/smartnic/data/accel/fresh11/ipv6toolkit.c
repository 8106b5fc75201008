/* Fresh11 held-out set: SI6 Networks' IPv6 toolkit 2.0's tools/libipv6.c:
 * in_chksum (the ICMPv6/TCP/UDP Internet checksum over the IPv6
 * pseudo-header and the payload), match_ipv6 (whether an address matches
 * any prefix of a list: masked copies compared, the first match ends it),
 * is_ip6_in_prefix_list and match_ipv6_to_prefixes (the same any-match
 * over a prefix list, word by word with a mask for the last word),
 * is_ip6_in_address_list (exact membership) and ip6_longest_match (the
 * number of leading bits two addresses share, up to 64: a common-prefix
 * length), with the helpers sanitize_ipv6_prefix (mask an address) and
 * is_eq_in6_addr (compare two). find_matching_address, which picks the
 * local address sharing the most leading bits with a destination, was
 * left out: it is no prefix-table lookup, and neither label would be
 * honest for it. Verbatim (extracted at bench time from $NFC_CORPUS_DIR);
 * the structures are tools/libipv6.h's, struct ip6_hdr the two addresses
 * of netinet/ip6.h's layout that in_chksum reads. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <netinet/in.h>
#define TRUE 1
#define FALSE 0
struct ip6_hdr {
	uint32_t ip6_flow;
	uint16_t ip6_plen;
	uint8_t ip6_nxt;
	uint8_t ip6_hlim;
	struct in6_addr ip6_src;
	struct in6_addr ip6_dst;
};
struct ipv6pseudohdr{
    struct in6_addr srcaddr;
    struct in6_addr dstaddr;
    uint32_t	len;
    uint8_t zero[3];
    uint8_t	nh;
} __attribute__ ((__packed__));
struct prefix_entry{
	struct in6_addr		ip6;
	unsigned char		len;
};
struct prefix_list{
	struct prefix_entry	**prefix;
	unsigned int		nprefix;
	unsigned int		maxprefix;
};
//@extract ipv6toolkit/tools/libipv6.c sanitize_ipv6_prefix is_eq_in6_addr match_ipv6 in_chksum is_ip6_in_address_list is_ip6_in_prefix_list match_ipv6_to_prefixes ip6_longest_match
