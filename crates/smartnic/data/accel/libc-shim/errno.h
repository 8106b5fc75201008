/* Shared libc shim (no riscv32 libc here). */
#ifndef LIBC_SHIM_ERRNO_H
#define LIBC_SHIM_ERRNO_H
extern int errno;
#define EFAULT 14
#define ERANGE 34
#endif
