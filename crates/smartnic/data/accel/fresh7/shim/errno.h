/* Shim for fresh7 (no riscv32 libc here). */
#ifndef FRESH7_ERRNO_H
#define FRESH7_ERRNO_H
extern int errno;
#define EFAULT 14
#define ERANGE 34
#endif
