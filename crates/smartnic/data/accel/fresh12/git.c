/* Fresh12 held-out set: Git 2.55.0: path.c longest_ancestor_length (the
 * length of the longest directory in a list that is an ancestor of a
 * path — a running maximum over the lengths of the matching prefixes:
 * longest prefix at a '/' boundary, hard case), hashmap.c strhash and
 * memhash (FNV-1 string and buffer hashes) and xdiff/xutils.c
 * xdl_hash_record_verbatim (djb2 over a line, two bytes a step). Verbatim
 * (extracted at bench time from $NFC_CORPUS_DIR); the FNV constants and
 * the fence macro are the files' own, struct string_list (string-list.h's
 * declaration) is written here. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#define FNV32_BASE ((unsigned int) 0x811c9dc5)
#define FNV32_PRIME ((unsigned int) 0x01000193)
#define REASSOC_FENCE(x, y) __asm__("" : "+r"(x), "+r"(y))
typedef int (*compare_strings_fn)(const char *, const char *);
struct string_list_item {
	char *string;
	void *util;
};
struct string_list {
	struct string_list_item *items;
	size_t nr;
	size_t alloc;
	unsigned int strdup_strings:1;
	compare_strings_fn cmp;
};
//@extract git/path.c longest_ancestor_length
//@extract git/hashmap.c strhash memhash
//@extract git/xdiff/xutils.c xdl_hash_record_verbatim
