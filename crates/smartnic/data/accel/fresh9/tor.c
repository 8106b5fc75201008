/* Fresh9 held-out set: Tor 0.4.9.11's lib/intmath/bits.c tor_log2 (floor
 * log2 by halving comparisons, no loop) and lib/container/smartlist.c
 * smartlist_bsearch_idx (binary search of a sorted list through a compare
 * callback: the exact member's index, or the insert position; none);
 * verbatim (extracted at bench time from $NFC_CORPUS_DIR). The list struct
 * is smartlist_core.h's, smartlist_len its non-debug macro, tor_assert
 * compiled out. */
#include <stdint.h>
typedef struct smartlist_t {
  void **list;
  int num_used;
  int capacity;
} smartlist_t;
#define smartlist_len(sl) ((sl)->num_used)
#define tor_assert(x) ((void)(x))
#define raw_assert(x) ((void)(x))
//@extract tor/src/lib/intmath/bits.c tor_log2
//@extract tor/src/lib/container/smartlist.c smartlist_bsearch_idx
