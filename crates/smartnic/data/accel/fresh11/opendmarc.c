/* Fresh11 held-out set: OpenDMARC 1.4.2's libopendmarc: opendmarc_tld.c
 * opendmarc_get_tld (the organizational domain: the name, labels
 * reversed into a buffer, is cut back one label at a time from its
 * longest form — the buffer truncated in place after and at each '.' —
 * and each form looked up in the hash of public suffixes until one is
 * found: shorten and retry, the first hit the longest) and
 * opendmarc_reverse_domain (reverses the order of a name's labels: a
 * string transform), with opendmarc_hash.c opendmarc_hash_string (a
 * shift-and-xor string hash its comment calls "a more modern CRC hash":
 * a 5-bit rotate and xor per byte, no polynomial division). Same
 * project as fresh10's OpenDKIM (the Trusted Domain Project), other code.
 * Verbatim (extracted at bench time from $NFC_CORPUS_DIR); the types and
 * limits are opendmarc_internal.h's, no pthreads (HAVE_PTHREAD unset),
 * strlcpy/strlcat and the hash lookup are declared. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>
#ifndef EINVAL
#define EINVAL 22
#endif
typedef unsigned char u_char;
#define MAXDNSHOSTNAME 256
typedef struct opendmarc_hash_ctx OPENDMARC_HASH_CTX;
size_t strlcpy(char *, const char *, size_t);
size_t strlcat(char *, const char *, size_t);
void *opendmarc_hash_lookup(OPENDMARC_HASH_CTX *hctx, char *string, void *data, size_t datalen);
static OPENDMARC_HASH_CTX *TLD_hctx    = NULL;
//@extract opendmarc/libopendmarc/opendmarc_tld.c opendmarc_reverse_domain opendmarc_get_tld
//@extract opendmarc/libopendmarc/opendmarc_hash.c opendmarc_hash_string
/* opendmarc_hash_string is static: called here so that -O0 emits it. */
size_t wrap_opendmarc_hash(char *s, size_t n)
{
	return opendmarc_hash_string(s, n);
}
