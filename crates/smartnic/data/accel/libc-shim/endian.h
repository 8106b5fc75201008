/* Shared libc shim (no riscv32 libc here): the target is little-endian. */
#ifndef LIBC_SHIM_ENDIAN_H
#define LIBC_SHIM_ENDIAN_H
#include <stdint.h>
#define htobe32(x) __builtin_bswap32(x)
#define be32toh(x) __builtin_bswap32(x)
#endif
