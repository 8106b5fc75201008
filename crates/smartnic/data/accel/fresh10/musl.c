/* Fresh10 held-out set: musl 1.2.6's src/network/lookup_name.c policyof
 * (the RFC 6724 default policy table, written in the source with the
 * longer prefixes first — ::1/128, ::ffff:0:0/96, 2002::/16, 2001::/32,
 * fc00::/7, ::/0 — and scanned in that order, the first prefix that matches
 * taken: the longest match by the table's order, lpm, a hard case: the
 * order is a constant of the translation unit, not of the function), with
 * src/prng/random.c random (the BSD additive lagged-Fibonacci generator on
 * a static state, no message: none) and its lcg31/lcg64 steps,
 * src/prng/__rand48_step.c __rand48_step (the 48-bit linear congruential
 * step: none), src/search/hsearch.c keyhash (multiply-by-31 string hash:
 * none) and src/string/strstr.c twoway_strstr (the two-way string matcher:
 * none). Verbatim (extracted at bench time from $NFC_CORPUS_DIR); the
 * generator's state and lock macros are random.c's and lock.h's (no
 * threads here), the bit macros strstr.c's, struct in6_addr POSIX's. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
struct in6_addr { unsigned char s6_addr[16]; };
#define LOCK(x) ((void)(x))
#define UNLOCK(x) ((void)(x))
static uint32_t init[32];
static int n = 31;
static int i = 3;
static int j = 0;
static uint32_t *x = init+1;
static volatile int lock[1];
#define MAX(a,b) ((a)>(b)?(a):(b))
#define MIN(a,b) ((a)<(b)?(a):(b))
extern void *memchr(const void *, int, size_t);
#define BITOP(a,b,op) \
 ((a)[(size_t)(b)/(8*sizeof *(a))] op (size_t)1<<((size_t)(b)%(8*sizeof *(a))))
//@extract musl/src/network/lookup_name.c defpolicy policyof
//@extract musl/src/prng/random.c lcg31 random
//@extract musl/src/prng/__rand48_step.c __rand48_step
//@extract musl/src/search/hsearch.c keyhash
//@extract musl/src/string/strstr.c twoway_strstr
/* policyof, keyhash and twoway_strstr are static: called here so that -O0 emits them. */
int wrap_musl(const struct in6_addr *a, char *k, const unsigned char *h, const unsigned char *nd)
{
	return policyof(a)->label + (int)keyhash(k) + (twoway_strstr(h, nd) != 0);
}
