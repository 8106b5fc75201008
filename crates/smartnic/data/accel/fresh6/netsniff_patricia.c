/* Fresh6 held-out set: netsniff-ng 0.6.9's Patricia tree searches
 * (patricia.c: ptree_search_data_r descends by the threshold bits to a
 * leaf and returns its data without comparing keys, the "nearest" entry;
 * ptree_search_data_r_x does the same and then compares the whole key,
 * an exact match; testbit_max is the bit test), verbatim (extracted at
 * bench time from $NFC_CORPUS_DIR). The node type is patricia.h's. */
#include <stddef.h>
#include <string.h>
struct sockaddr_storage { unsigned char ss_data[128]; };
static const unsigned char mbit[] = { 0x80, 0x40, 0x20, 0x10, 0x08, 0x04, 0x02, 0x01 };
struct patricia_node {
	void *key;
	size_t klen;
	struct sockaddr_storage *addr;
	size_t alen;
	union {
		int data;
		int thres_bit;
	} value;
	struct patricia_node *l, *r;
};
#ifndef ENOENT
#define ENOENT 2
#endif
//@extract netsniff-ng/patricia.c testbit_max ptree_search_data_r ptree_search_data_r_x
int wrap_r(struct patricia_node *n, char *s, size_t l, struct sockaddr_storage *a, size_t *al, int m) { return ptree_search_data_r(n, s, l, a, al, m); }
int wrap_r_x(struct patricia_node *n, char *s, size_t l, struct sockaddr_storage *a, size_t *al, int m) { return ptree_search_data_r_x(n, s, l, a, al, m); }
