/* Fresh8 held-out set: reiserfsprogs 3.6.27's directory name hashes
 * (reiserfscore/hashes.c): keyed_hash (TEA rounds over 16-byte blocks),
 * r5_hash (shift-add-multiply per byte) and yura_hash (decimal positional
 * sums), verbatim (extracted at bench time from $NFC_CORPUS_DIR). The
 * constants and the TEACORE macro are copied from hashes.c. */
#include <stdint.h>
typedef uint32_t u32;
#define DELTA 0x9E3779B9
#define FULLROUNDS 10
#define PARTROUNDS 6
#define TEACORE(rounds)							\
	do {								\
		u32 sum = 0;						\
		int n = rounds;						\
		u32 b0, b1;						\
									\
		b0 = h0;						\
		b1 = h1;						\
									\
		do							\
		{							\
			sum += DELTA;					\
			b0 += ((b1 << 4)+a) ^ (b1+sum) ^ ((b1 >> 5)+b);	\
			b1 += ((b0 << 4)+c) ^ (b0+sum) ^ ((b0 >> 5)+d);	\
		} while(--n);						\
									\
		h0 += b0;						\
		h1 += b1;						\
	} while(0)
//@extract reiserfsprogs/reiserfscore/hashes.c keyed_hash yura_hash r5_hash
