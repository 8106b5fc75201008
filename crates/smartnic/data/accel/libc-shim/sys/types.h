/* Shared libc shim (no riscv32 libc here). */
#ifndef LIBC_SHIM_SYS_TYPES_H
#define LIBC_SHIM_SYS_TYPES_H
#include <stdint.h>
#include <stddef.h>
typedef int32_t ssize_t;
typedef int64_t off_t;
#endif
