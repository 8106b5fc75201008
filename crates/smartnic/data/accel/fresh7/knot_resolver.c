/* Fresh7 held-out set: Knot Resolver 5.6.0's closest trust anchor
 * (lib/dnssec/ta.c: kr_ta_closest strips the name one label at a time,
 * from the full name up, and returns the first (longest) suffix holding a
 * trust anchor, unless a negative anchor is met first; kr_ta_get looks a
 * name up in the anchor trie), verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR). The trie and wire helpers and the failure report
 * stay external; kr_require is utils.h's, copied. */
#include <stdint.h>
#include <string.h>
#include <stdbool.h>
typedef uint8_t knot_dname_t;
typedef struct trie trie_t;
typedef void *trie_val_t;
typedef struct knot_rrset knot_rrset_t;
#define KNOT_RRTYPE_DS 43
struct kr_context { trie_t *trust_anchors; trie_t *negative_anchors; };
void kr_fail(bool is_fatal, const char *expr, const char *func, const char *file, int line);
#define kr_require(expression) do { if (!(expression)) { \
		kr_fail(true, #expression, __func__, __FILE__, __LINE__); \
		__builtin_unreachable(); \
	} } while (false)
trie_val_t *trie_get_try(trie_t *tbl, const char *key, uint32_t len);
const uint8_t *knot_wire_next_label(const uint8_t *lp, const uint8_t *wire);
//@extract knot-resolver/lib/dnssec/ta.c kr_ta_get kr_ta_closest
