/* Shim for fresh3/tcpdump_cksum.c: the declarations of tcpdump's
 * netdissect.h and extract.h the checksum code uses. */
#ifndef FRESH3_NETDISSECT_H
#define FRESH3_NETDISSECT_H
#include "netdissect-stdinc.h"
typedef struct netdissect_options netdissect_options;
struct cksum_vec {
	const uint8_t	*ptr;
	int		len;
};
extern uint16_t in_cksum(const struct cksum_vec *, int);
extern uint16_t in_cksum_shouldbe(uint16_t, uint16_t);
extern uint16_t verify_crc10_cksum(uint16_t, const u_char *, int);
extern uint16_t create_osi_cksum(const uint8_t *, int, int);
extern void init_checksum(void);
/* extract.h's bounds-checked byte read, without the longjmp on truncation */
#define GET_U_1(p) (*(const uint8_t *)(p))
#endif
