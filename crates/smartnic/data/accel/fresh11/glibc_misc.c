/* Fresh11 held-out set: GNU C library 2.43: intl/hash-string.c
 * __hash_string (P. J. Weinberger's hashpjw string hash: shift by four,
 * add, fold the top nibble back with xors — a plain hash),
 * sysdeps/generic/dl-hash.h _dl_elf_hash (the ELF ABI's symbol hash, the
 * same scheme unrolled for the first five bytes: a plain hash) and
 * stdlib/random_r.c __random_r (the BSD random(3) generator on a caller's
 * state: a 31-bit LCG for TYPE_0, else the additive lagged-Fibonacci step
 * — no message; fresh10's musl random is the same algorithm in other
 * code) with its state accessors read_state and write_state. Verbatim
 * (extracted at bench time from $NFC_CORPUS_DIR); struct random_data is
 * stdlib/stdlib.h's, HASHWORDBITS and TYPE_0 their files', __set_errno
 * sets errno. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>
#ifndef EINVAL
#define EINVAL 22
#endif
#define __set_errno(e) (errno = (e))
#define HASHWORDBITS 32
#define TYPE_0 0
struct random_data
  {
    int32_t *fptr;		/* Front pointer.  */
    int32_t *rptr;		/* Rear pointer.  */
    int32_t *state;		/* Array of state values.  */
    int rand_type;		/* Type of random number generator.  */
    int rand_deg;		/* Degree of random number generator.  */
    int rand_sep;		/* Distance between front and rear.  */
    int32_t *end_ptr;		/* Pointer behind state table.  */
  };
//@extract glibc/intl/hash-string.c __hash_string
//@extract glibc/sysdeps/generic/dl-hash.h _dl_elf_hash
//@extract glibc/stdlib/random_r.c read_state write_state __random_r
/* _dl_elf_hash is static: called here so that -O0 emits it. */
unsigned int wrap_dl_elf_hash(const char *name)
{
	return _dl_elf_hash(name);
}
