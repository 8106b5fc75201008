/* Shim for fresh7 (no riscv32 libc here). */
#include <netinet/in.h>
