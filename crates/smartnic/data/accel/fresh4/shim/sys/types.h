/* Shim for fresh4 (no riscv32 libc here): POSIX scalar types. */
#ifndef FRESH4_SYS_TYPES_H
#define FRESH4_SYS_TYPES_H
#include <stdint.h>
#include <stddef.h>
typedef long ssize_t;
typedef long off_t;
typedef int64_t time_t;
typedef unsigned char u_char;
typedef unsigned short u_short;
typedef unsigned int u_int;
typedef unsigned long u_long;
#endif
