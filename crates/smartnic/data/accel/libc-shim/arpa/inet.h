/* Shared libc shim (no riscv32 libc here). */
#include <netinet/in.h>
