/* Shim for fresh8 (no riscv32 libc here). */
#ifndef FRESH8_ERRNO_H
#define FRESH8_ERRNO_H
extern int errno;
#define EFAULT 14
#define ERANGE 34
#endif
