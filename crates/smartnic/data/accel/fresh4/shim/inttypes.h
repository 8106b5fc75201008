/* Shim for fresh4 (no riscv32 libc here). */
#include <stdint.h>
