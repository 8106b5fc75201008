/* Fresh5 held-out set: rbldnsd 1.0's ip4set dataset (rbldnsd_ip4set.c),
 * verbatim (extracted at bench time from $NFC_CORPUS_DIR):
 * ds_ip4set_query (four sorted tables of /32, /24, /16 and /8 entries
 * tried from the most specific, the address masked to each length and
 * searched: the longest listed prefix answers, exclusions included) and
 * ds_ip4set_find (exact binary search of one table, then back to the
 * first equal entry). Types and macros are rbldnsd.h's, ip4addr.h's and
 * rbldnsd_ip4set.c's reduced to the fields used; answer building stays
 * external. */
#include <stdint.h>
#include <stddef.h>
typedef uint32_t ip4addr_t;
#define NSQUERY_TXT	(1u<<4)
#define NSQUERY_FOUND	0x01
#define NSQUERY_EMPTY	(1u<<14)
#define NSQUERY_ALWAYS	(1u<<15)
#define NSQUERY_ADDPEER	0x02
#define check_query_overwrites(qi) \
  if ((qi)->qi_tflag & NSQUERY_EMPTY)  return 0; \
  if ((qi)->qi_tflag & NSQUERY_ALWAYS) return NSQUERY_ADDPEER
struct dnspacket;
struct dnsqinfo {
  unsigned qi_tflag;
  int qi_ip4valid;
  ip4addr_t qi_ip4;
};
struct entry {
  ip4addr_t addr;	/* key: IP address */
  const char *rr;	/* A and TXT RRs */
};
struct dsdata {
  unsigned n[4];	/* counts */
  unsigned a[4];	/* allocated (only for loading) */
  unsigned h[4];	/* hint, how much to allocate next time */
  struct entry *e[4];	/* entries */
  const char *def_rr;	/* default A and TXT RRs */
};
struct dataset {
  const void *ds_type;
  struct dsdata *ds_dsd;
};
#define E32 0
#define E24 1
#define E16 2
#define E08 3
#define M32 0xffffffffu
#define M24 0xffffff00u
#define M16 0xffff0000u
#define M08 0xff000000u
const char *ip4atos(ip4addr_t a);
void addrr_a_txt(struct dnspacket *pkt, unsigned qtflag,
                 const char *rr, const char *subst,
                 const struct dataset *ds);
//@extract rbldnsd/rbldnsd_ip4set.c ds_ip4set_find ds_ip4set_query
/* Static functions are emitted only when called. */
int wrap_ds_ip4set_query(const struct dataset *ds, const struct dnsqinfo *qi,
                         struct dnspacket *pkt) {
  return ds_ip4set_query(ds, qi, pkt);
}
