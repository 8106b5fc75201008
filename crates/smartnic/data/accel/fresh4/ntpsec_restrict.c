/* Fresh4 held-out set: NTPsec 1.2.2's restriction lists
 * (ntpd/ntp_restrict.c): match_restrict4_addr / match_restrict6_addr
 * return the first entry covering the address in lists kept sorted by
 * descending address then descending mask (init_restrict's comment: the
 * first match is the most specific), and match_restrict_entry, an exact
 * match of address, mask and flags; verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR). Types are ntp.h's and ntpd.h's reduced to the fields
 * used; MASK_IPV6_ADDR is ntp_restrict.c's, ADDR6_CMP and ADDR6_EQ
 * ntp_net.h's, COUNTOF ntp_types.h's. */
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <string.h>
#include <netinet/in.h>
#define INSIST(x) ((void)(x))
#define NTP_PORT 123
#define RESM_NTPONLY 0x2000
#define COUNTOF(arr) (sizeof(arr) / sizeof((arr)[0]))
#define ADDR6_CMP(pin6A, pin6B) \
	memcmp((pin6A)->s6_addr, (pin6B)->s6_addr, sizeof(pin6A)->s6_addr)
#define ADDR6_EQ(pin6A, pin6B) (!ADDR6_CMP(pin6A, pin6B))
#define MASK_IPV6_ADDR(dst, src, msk)					\
	do {								\
		int idx;						\
		for (idx = 0; idx < (int)COUNTOF((dst)->s6_addr); idx++) { \
			(dst)->s6_addr[idx] = (src)->s6_addr[idx]	\
					      & (msk)->s6_addr[idx];	\
		}							\
	} while (0)
typedef struct res_addr4_tag { uint32_t addr; uint32_t mask; } res_addr4;
typedef struct res_addr6_tag { struct in6_addr addr; struct in6_addr mask; } res_addr6;
typedef struct restrict_u_tag restrict_u;
struct restrict_u_tag {
	restrict_u *link;
	uint32_t hitcount;
	unsigned short flags;
	unsigned short mflags;
	union { res_addr4 v4; res_addr6 v6; } u;
};
struct restriction_data {
  restrict_u *restrictlist4;
  restrict_u *restrictlist6;
  int ntp_minpkt;
  uint8_t ntp_minpoll;
};
extern struct restriction_data rstrct;
//@extract ntpsec/ntpd/ntp_restrict.c match_restrict4_addr match_restrict6_addr match_restrict_entry
restrict_u *wrap_match4(uint32_t a, unsigned short p) { return match_restrict4_addr(a, p); }
restrict_u *wrap_match6(const struct in6_addr *a, unsigned short p) { return match_restrict6_addr(a, p); }
restrict_u *wrap_entry(const restrict_u *m, int v6) { return match_restrict_entry(m, v6); }
