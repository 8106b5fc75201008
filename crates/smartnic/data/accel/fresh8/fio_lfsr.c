/* Fresh8 held-out set: fio 3.33's random-offset generator (lib/lfsr.c):
 * lfsr_next advances a Galois LFSR held in a struct (__lfsr_next steps it
 * spin + 1 times with the __LFSR_NEXT macro) until the value is in range,
 * and returns it through a pointer, verbatim (extracted at bench time
 * from $NFC_CORPUS_DIR). The struct is lfsr.h's; the step macro is copied
 * from lfsr.c, the branch hints from compiler/compiler.h. */
#include <stdint.h>
struct fio_lfsr {
	uint64_t xormask;
	uint64_t last_val;
	uint64_t cached_bit;
	uint64_t max_val;
	uint64_t num_vals;
	uint64_t cycle_length;
	uint64_t cached_cycle_length;
	unsigned int spin;
};
#define fio_fallthrough __attribute__((__fallthrough__))
#define fio_unlikely(x) __builtin_expect(!!(x), 0)
#define __LFSR_NEXT(__fl, __v)						\
	__v = ((__v >> 1) | __fl->cached_bit) ^			\
			(((__v & 1ULL) - 1ULL) & __fl->xormask);
//@extract fio/lib/lfsr.c __lfsr_next lfsr_next
