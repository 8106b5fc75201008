/* Fresh9 held-out set: Postfix 3.7.11's util/cidr_match.c
 * cidr_match_execute (the FIRST entry of a CIDR pattern list that matches
 * the address, with if/endif blocks: a first-match scan, not a longest
 * match — entries are tried in file order) and its masked compare
 * cidr_match_entry, util/htable.c's htable_hash (the Aho-Sethi-Ullman
 * "Dragon book" hash, the ELF/PJW style); verbatim
 * (extracted at bench time from $NFC_CORPUS_DIR). The struct and macros
 * are cidr_match.h's and myaddrinfo.h's. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <limits.h>
#define AF_INET 2
#define AF_INET6 10
#define MAI_V4ADDR_BITS		32
#define MAI_V6ADDR_BITS		128
#define MAI_V4ADDR_BYTES	((MAI_V4ADDR_BITS + (CHAR_BIT - 1))/CHAR_BIT)
#define MAI_V6ADDR_BYTES	((MAI_V6ADDR_BITS + (CHAR_BIT - 1))/CHAR_BIT)
#define CIDR_MATCH_ABYTES	MAI_V6ADDR_BYTES
typedef struct CIDR_MATCH {
    int     op;
    int     match;
    unsigned char net_bytes[CIDR_MATCH_ABYTES];
    unsigned char mask_bytes[CIDR_MATCH_ABYTES];
    unsigned char addr_family;
    unsigned char addr_byte_count;
    unsigned char addr_bit_count;
    unsigned char mask_shift;
    struct CIDR_MATCH *next;
    struct CIDR_MATCH *block_end;
} CIDR_MATCH;
#define CIDR_MATCH_OP_MATCH	1
#define CIDR_MATCH_OP_IF	2
#define CIDR_MATCH_OP_ENDIF	3
#define CIDR_MATCH_ADDR_FAMILY(a) (strchr((a), ':') ? AF_INET6 : AF_INET)
int inet_pton(int, const char *, void *);
//@extract postfix/src/util/cidr_match.c cidr_match_entry cidr_match_execute
//@extract postfix/src/util/htable.c htable_hash
/* htable_hash is static: called here so that -O0 emits it. */
size_t wrap_htable_hash(const char *s, size_t size)
{
	return htable_hash(s, size);
}
