/* Fresh6 held-out set: dnsmasq 2.90's upstream server choice
 * (src/domain-match.c: lookup_domain, the server whose domain is the
 * longest match to the right-hand end of the query name; the server array
 * is sorted longest domain first, each shorter suffix of the query is
 * looked up by binary search until one matches), verbatim (extracted at
 * bench time from $NFC_CORPUS_DIR). Types are dnsmasq.h's reduced to the
 * fields used; order and filter_servers stay external. */
#include <stdint.h>
#include <stddef.h>
typedef long ssize_t;
typedef uint16_t u16;
#define F_DNSSECOK (1u<<15)
#define F_SERVER (1u<<18)
#define SERV_USE_RESOLV 2
#define SERV_FOR_NODOTS 64
#define SERV_WILDCARD 1024
struct server {
  u16 flags, domain_len;
  char *domain;
  struct server *next;
};
struct daemon {
  struct server **serverarray;
  int serverarraysz;
  int server_has_wildcard;
};
extern struct daemon *daemon;
int order(char *qdomain, size_t qlen, struct server *serv);
int filter_servers(int seed, int flags, int *lowout, int *highout);
//@extract dnsmasq/src/domain-match.c lookup_domain
