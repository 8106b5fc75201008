/* Shim for fresh3 (no riscv32 libc here). */
#ifndef FRESH3_SYS_TYPES_H
#define FRESH3_SYS_TYPES_H
#include <stdint.h>
#include <stddef.h>
typedef int32_t ssize_t;
#endif
