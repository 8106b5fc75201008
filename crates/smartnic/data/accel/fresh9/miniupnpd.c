/* Fresh9 held-out set: MiniUPnPd 2.3.1's upnppermissions.c:
 * check_upnp_rule_against_permissions (the FIRST permission rule whose
 * port ranges and masked address match decides: a first-match rule scan,
 * not a longest match), get_permitted_ext_ports (applies every matching
 * rule to a port bitmap, last to first, so earlier rules override: a rule
 * evaluation, no lookup) and their masked test match_permission; verbatim
 * (extracted at bench time from $NFC_CORPUS_DIR). The struct is
 * upnppermissions.h's. */
#include <stdint.h>
#include <string.h>
typedef uint32_t in_addr_t;
struct in_addr { in_addr_t s_addr; };
typedef unsigned short u_short;
struct upnpperm {
	enum {UPNPPERM_ALLOW=1, UPNPPERM_DENY=2 } type;
				/* is it an allow or deny permission rule ? */
	u_short eport_min, eport_max;	/* external port range */
	struct in_addr address, mask;	/* ip/mask */
	u_short iport_min, iport_max;	/* internal port range */
};
#define LOG_DEBUG 7
extern void syslog(int, const char *, ...);
//@extract miniupnpd/upnppermissions.c match_permission check_upnp_rule_against_permissions get_permitted_ext_ports
