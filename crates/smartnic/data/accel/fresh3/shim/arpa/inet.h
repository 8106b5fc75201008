/* Shim for fresh3 (no riscv32 libc here). */
#include <netinet/in.h>
