/* Fresh11 held-out set: libpsl 0.23.3's src/psl.c, the Public Suffix List
 * library: psl_unregistrable_domain (the longest public suffix of a name:
 * the name itself, then each parent domain, cut with strchr at the next
 * '.', handed to is_public_suffix until one is a public suffix — the
 * first hit is the longest: shorten and retry) and psl_registrable_domain
 * (the same walk, keeping the name one label longer than the suffix
 * found: the registrable domain is set by the longest public suffix),
 * with vector_get and vector_find (an exact binary search over the sorted
 * rules), suffix_compare (their order: most labels first). Verbatim
 * (extracted at bench time from $NFC_CORPUS_DIR); the types are psl.c's
 * and libpsl.h's, is_public_suffix (the DAFSA or rule lookup of one
 * suffix) is declared, not extracted. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
typedef struct {
	char
		label_buf[128];
	const char *
		label;
	unsigned short
		length;
	unsigned char
		nlabels, /* number of labels */
		flags;
} psl_entry_t;
typedef struct {
	int
		(*cmp)(const psl_entry_t **, const psl_entry_t **); /* comparison function */
	psl_entry_t
		**entry; /* pointer to array of pointers to elements */
	int
		max,     /* allocated elements */
		cur;     /* number of elements in use */
} psl_vector_t;
typedef struct psl_ctx_st psl_ctx_t;
int is_public_suffix(const psl_ctx_t *psl, const char *domain, int type);
//@extract libpsl/src/psl.c vector_get vector_find suffix_compare psl_unregistrable_domain psl_registrable_domain
/* The vector helpers are static: called here so that -O0 emits them. */
int wrap_psl(const psl_vector_t *v, const psl_entry_t *e, const psl_entry_t *f)
{
	return vector_find(v, e) + (vector_get(v, 0) != 0) + suffix_compare(e, f);
}
