/* Fresh3 held-out set: OpenBGPD 7.7's longest-match lookups (src/bgpd/
 * rde_rib.c's rib_match, src/bgpd/kroute.c's kroute_match and
 * kroute6_match: an exact lookup per prefix length, longest first, through
 * external find functions), verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR). The address type and constants are bgpd.h's; the
 * tables stay opaque, their find functions external, as in those files. */
#include <stdint.h>
#include <stddef.h>
#include <netinet/in.h>
#define AID_INET 1
#define AID_INET6 2
#define AID_VPN_IPv4 3
#define AID_VPN_IPv6 4
#define RTP_ANY 0x0
struct bgpd_addr {
	union {
		struct in_addr		v4;
		struct in6_addr		v6;
	} ba;
	uint64_t	rd;
	uint32_t	scope_id;
	uint8_t		aid;
	uint8_t		labellen;
	uint8_t		labelstack[18];
#define	v4	ba.v4
#define	v6	ba.v6
};
struct rib;
struct rib_entry;
struct ktable;
struct kroute;
struct kroute6;
struct kroute_full;
struct rib_entry *rib_get(struct rib *, struct bgpd_addr *, int);
void fatalx(const char *, ...);
void applymask(struct bgpd_addr *, const struct bgpd_addr *, int);
struct kroute *kroute_find(struct ktable *, const struct bgpd_addr *, uint8_t, uint8_t);
struct kroute6 *kroute6_find(struct ktable *, const struct bgpd_addr *, uint8_t, uint8_t);
int bgpd_oknexthop(struct kroute_full *);
struct kroute_full *kr_tofull(struct kroute *);
struct kroute_full *kr6_tofull(struct kroute6 *);
//@extract openbgpd/src/bgpd/rde_rib.c rib_match
//@extract openbgpd/src/bgpd/kroute.c kroute_match kroute6_match
