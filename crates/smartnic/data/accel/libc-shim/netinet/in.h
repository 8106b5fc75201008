/* Shared libc shim (no riscv32 libc here): POSIX internet address types
 * with Linux's layouts and glibc's IN6_IS_ADDR_V4MAPPED. */
#ifndef LIBC_SHIM_NETINET_IN_H
#define LIBC_SHIM_NETINET_IN_H
#include <sys/socket.h>
typedef uint32_t in_addr_t;
typedef uint16_t in_port_t;
struct in_addr { in_addr_t s_addr; };
struct in6_addr { union { uint8_t __u6_addr8[16]; uint16_t __u6_addr16[8]; uint32_t __u6_addr32[4]; } __in6_u; };
#define s6_addr __in6_u.__u6_addr8
#define s6_addr32 __in6_u.__u6_addr32
struct sockaddr_in { sa_family_t sin_family; in_port_t sin_port; struct in_addr sin_addr; unsigned char sin_zero[8]; };
struct sockaddr_in6 { sa_family_t sin6_family; in_port_t sin6_port; uint32_t sin6_flowinfo; struct in6_addr sin6_addr; uint32_t sin6_scope_id; };
#define INADDR_NONE ((in_addr_t) 0xffffffff)
#define IN6_IS_ADDR_V4MAPPED(a) \
	(((const uint32_t *) (a))[0] == 0 && ((const uint32_t *) (a))[1] == 0 && \
	 ((const uint32_t *) (a))[2] == htonl(0xffff))
uint32_t ntohl(uint32_t);
uint32_t htonl(uint32_t);
uint16_t ntohs(uint16_t);
uint16_t htons(uint16_t);
#endif
