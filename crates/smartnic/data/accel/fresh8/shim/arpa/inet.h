/* Shim for fresh8 (no riscv32 libc here). */
#include <netinet/in.h>
