/* Fresh12 held-out set: GNU Wget 1.25.0's src/hsts.c: hsts_find_entry
 * (the HSTS entry for a host: the whole name, then each parent domain —
 * the name cut after each '.' found by strchr, the cut pointer stored in
 * the key struct handed to the hash lookup — the first entry found that
 * covers subdomains: the longest matching domain suffix), hsts_hash_func
 * (a times-31 string hash with the port) and hsts_cmp_func (exact
 * equality of host and port). Verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR); the structs and the enum are hsts.c's own
 * declarations, written here; xnew/xfree are utils.h's forms, the
 * allocation and hash-table calls are declared. */
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
typedef long time_t;
struct hash_table;
void *hash_table_get(const struct hash_table *, const void *);
void *xmalloc(size_t);
char *xstrdup_lower(const char *);
#define xnew(type) (xmalloc (sizeof (type)))
#define xfree(p) do { free ((void *) (p)); p = NULL; } while (0)
struct hsts_store {
  struct hash_table *table;
  time_t last_mtime;
  bool changed;
};
typedef struct hsts_store *hsts_store_t;
struct hsts_kh {
  char *host;
  int explicit_port;
};
struct hsts_kh_info {
  int64_t created;
  int64_t max_age;
  bool include_subdomains;
};
enum hsts_kh_match {
  NO_MATCH,
  SUPERDOMAIN_MATCH,
  CONGRUENT_MATCH
};
//@extract wget/src/hsts.c hsts_hash_func hsts_cmp_func hsts_find_entry
/* The static functions are called here so that -O0 emits them. */
void *wrap_hsts(hsts_store_t s, const char *host, struct hsts_kh *kh)
{
	enum hsts_kh_match m;
	return hsts_hash_func(kh) + hsts_cmp_func(kh, kh) ? hsts_find_entry(s, host, 0, &m, kh) : NULL;
}
