/* Fresh10 held-out set: ISC DHCP 4.4.3-P1's server/mdb.c subnet list:
 * enter_subnet (K&R-style, so not extracted) inserts a subnet so that, of
 * two overlapping subnets, the one with the narrower mask comes first;
 * subnet_inner_than is its overlap-and-narrower test (none); find_subnet
 * returns the first subnet of that list whose network equals the address
 * under the subnet's mask — the most specific covering subnet, by the order
 * enter_subnet keeps (lpm, a hard case: the order is established by
 * another function, as fresh9's decode_tocall). Verbatim (extracted at
 * bench time from $NFC_CORPUS_DIR); the structs are inet.h's and dhcpd.h's
 * with the OMAPI object header reduced to a reference count, the
 * reference helpers and K&R-style inet.c helpers declared extern. */
#include <stddef.h>
#include <string.h>
#define MDL __FILE__, __LINE__
typedef int isc_result_t;
#define ISC_R_SUCCESS 0
struct iaddr {
	unsigned len;
	unsigned char iabuf [16];
};
struct subnet {
	int refcnt;
	struct subnet *next_subnet;
	struct subnet *next_sibling;
	struct shared_network *shared_network;
	struct interface_info *interface;
	struct iaddr interface_address;
	struct iaddr net;
	struct iaddr netmask;
	int prefix_len;			/* XXX: currently for IPv6 only */
	struct group *group;
};
extern struct subnet *subnets;
extern struct iaddr subnet_number(struct iaddr, struct iaddr);
extern int addr_eq(struct iaddr, struct iaddr);
extern const char *piaddr(const struct iaddr);
extern int log_error(const char *, ...);
extern isc_result_t subnet_reference(struct subnet **, struct subnet *, const char *, int);
extern isc_result_t subnet_dereference(struct subnet **, const char *, int);
//@extract isc-dhcp/server/mdb.c find_subnet subnet_inner_than
