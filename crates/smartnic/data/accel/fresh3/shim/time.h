/* Shim for fresh3 (no riscv32 libc here). */
#ifndef FRESH3_TIME_H
#define FRESH3_TIME_H
#include <stdint.h>
typedef int64_t time_t;
#endif
