/* Fresh10 held-out set: Linux 6.1.4's fs/ntfs3/lznt.c LZNT1 compressor
 * match finders: longest_match_best compares the input at every earlier
 * position and keeps the longest match so far (a best-so-far over string
 * match lengths — bytes compared, no prefix, mask or table of prefixes:
 * none, hard case), longest_match_std compares two hash-chain candidates
 * and keeps the longer (none), get_match_len counts equal bytes (helper).
 * Not zlib's lineage (fresh9's gzip longest_match is). Verbatim (extracted
 * at bench time from $NFC_CORPUS_DIR); the context structs and limits are
 * lznt.c's, the kernel types shim/kshim.h's. */
#include "kshim.h"
#define LZNT_CHUNK_SIZE		0x1000
struct lznt_hash {
	const u8 *p1;
	const u8 *p2;
};
struct lznt {
	const u8 *unc;
	const u8 *unc_end;
	const u8 *best_match;
	size_t max_len;
	bool std;

	struct lznt_hash hash[LZNT_CHUNK_SIZE];
};
//@extract linux/fs/ntfs3/lznt.c get_match_len longest_match_std longest_match_best
/* The match finders are static: called here so that -O0 emits them. */
size_t wrap_lznt_match(const u8 *src, struct lznt *ctx)
{
	return ctx->std ? longest_match_std(src, ctx) : longest_match_best(src, ctx);
}
