/* Shared libc shim (no riscv32 libc here). */
#ifndef LIBC_SHIM_TIME_H
#define LIBC_SHIM_TIME_H
#include <stdint.h>
typedef int64_t time_t;
#endif
