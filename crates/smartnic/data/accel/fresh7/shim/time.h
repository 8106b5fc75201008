/* Shim for fresh7 (no riscv32 libc here). */
#ifndef FRESH7_TIME_H
#define FRESH7_TIME_H
#include <stdint.h>
typedef int64_t time_t;
#endif
