/* Fresh6 held-out set: Knot DNS 3.2.6's geoip module view search
 * (src/knot/modules/geoip/geoip.c: find_best_view finds, in views sorted
 * by subnet (or location), the last one not after the client's by binary
 * search, then climbs the "parent" links to the first view containing
 * the client: the most specific (in subnet mode, longest-prefix) view;
 * geo_bin_search is that floor search; view_strictly_in_view the
 * containment test), verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR). Types are geoip.c's reduced to the fields used;
 * sockaddr_net_match, the comparators and the rrsets stay external. */
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <string.h>
#define assert(e) ((void)0)
struct sockaddr_storage { unsigned char ss_data[128]; };
#define GEODB_MAX_DEPTH 8
enum operation_mode { MODE_SUBNET, MODE_GEODB, MODE_WEIGHTED };
typedef struct knot_rrset knot_rrset_t;
typedef uint8_t knot_dname_t;
typedef struct {
	enum operation_mode mode;
	uint32_t ttl;
} geoip_ctx_t;
typedef struct {
	struct sockaddr_storage *subnet;
	uint8_t subnet_prefix;
	void *geodata[GEODB_MAX_DEPTH];
	uint32_t geodata_len[GEODB_MAX_DEPTH];
	uint8_t geodepth;
	uint16_t weight;
	size_t prev;
	size_t count, avail;
	knot_rrset_t *rrsets;
	knot_rrset_t *rrsigs;
	knot_dname_t *cname;
} geo_view_t;
typedef struct {
	size_t count, avail;
	geo_view_t *views;
	uint16_t total_weight;
} geo_trie_val_t;
typedef int (*view_cmp_t)(const void *a, const void *b);
extern view_cmp_t cmp_fct[];
bool sockaddr_net_match(const struct sockaddr_storage *a, const struct sockaddr_storage *b, unsigned prefix);
//@extract knot/src/knot/modules/geoip/geoip.c view_strictly_in_view geo_bin_search find_best_view
geo_view_t *wrap_find_best_view(geo_view_t *d, geo_trie_val_t *v, geoip_ctx_t *c) { return find_best_view(d, v, c); }
int wrap_geo_bin_search(geo_view_t *a, int n, geo_view_t *x, view_cmp_t c) { return geo_bin_search(a, n, x, c); }
