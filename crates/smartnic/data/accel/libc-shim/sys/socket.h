/* Shared libc shim (no riscv32 libc here): the POSIX socket types the
 * extracted third-party functions use, with Linux's values and layouts. */
#ifndef LIBC_SHIM_SYS_SOCKET_H
#define LIBC_SHIM_SYS_SOCKET_H
#include <stdint.h>
#include <stddef.h>
typedef uint32_t socklen_t;
typedef unsigned short sa_family_t;
#define AF_UNSPEC 0
#define AF_UNIX 1
#define AF_INET 2
#define AF_INET6 10
struct sockaddr { sa_family_t sa_family; char sa_data[14]; };
struct sockaddr_storage { sa_family_t ss_family; char __ss_padding[118]; unsigned long __ss_align; };
#endif
