/* Shim for fresh8 (no riscv32 libc here). */
#ifndef FRESH8_SYS_TYPES_H
#define FRESH8_SYS_TYPES_H
#include <stdint.h>
#include <stddef.h>
typedef int32_t ssize_t;
typedef int64_t off_t;
#endif
