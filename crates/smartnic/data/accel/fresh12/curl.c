/* Fresh12 held-out set: curl 8.21.0's lib/: hsts.c hsts_check (the HSTS
 * entry for a host name: over the cached entries, an exact name returned
 * at once, else the entry covering subdomains with the longest matching
 * '.'-bounded tail, kept best-so-far: the longest domain suffix), proxy.c
 * cidr4_match and cidr6_match (whether one address lies in one network:
 * a single masked compare, after parsing both) and hash.c Curl_hash_str
 * (the times-33 xor string hash, modulo the slot count). Verbatim
 * (extracted at bench time from $NFC_CORPUS_DIR); UNITTEST is the
 * release build's (nothing), USE_IPV6 is set, and the list node, list,
 * cache and entry structs (llist.h's and hsts.h's, no DEBUGBUILD), the
 * list accessors, hsts_free, curl_strnequal and curlx_inet_pton are
 * declared or written here. */
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <string.h>
#define UNITTEST
#define USE_IPV6
#define FALSE false
#define TRUE true
#define AF_INET 2
#define AF_INET6 10
#define MAX_HSTS_HOSTLEN 2048
#define BIT(x) bool x
typedef long time_t;
typedef int64_t curl_off_t;
time_t time(time_t *);
unsigned int htonl(unsigned int);
int curlx_inet_pton(int, const char *, void *);
int curl_strnequal(const char *, const char *, size_t);
struct Curl_llist;
typedef void (*Curl_llist_dtor)(void *, void *);
struct Curl_llist_node {
  struct Curl_llist *_list;
  void *_ptr;
  struct Curl_llist_node *_prev;
  struct Curl_llist_node *_next;
};
struct Curl_llist {
  struct Curl_llist_node *_head;
  struct Curl_llist_node *_tail;
  Curl_llist_dtor _dtor;
  size_t _size;
};
struct Curl_llist_node *Curl_llist_head(struct Curl_llist *);
void *Curl_node_elem(struct Curl_llist_node *);
struct Curl_llist_node *Curl_node_next(struct Curl_llist_node *);
void Curl_node_remove(struct Curl_llist_node *);
struct stsentry {
  struct Curl_llist_node node;
  curl_off_t expires;
  BIT(includeSubDomains);
  char host[1];
};
struct hsts {
  struct Curl_llist list;
  char *filename;
  unsigned int flags;
};
void hsts_free(struct stsentry *);
//@extract curl/lib/hsts.c hsts_check
//@extract curl/lib/proxy.c cidr4_match cidr6_match
//@extract curl/lib/hash.c Curl_hash_str
