/* Shim for fresh8 (no riscv32 libc here). */
#ifndef FRESH8_TIME_H
#define FRESH8_TIME_H
#include <stdint.h>
typedef int64_t time_t;
#endif
