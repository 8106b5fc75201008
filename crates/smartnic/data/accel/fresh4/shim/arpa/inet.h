/* Shim for fresh4 (no riscv32 libc here): everything used is in netinet/in.h. */
#include <netinet/in.h>
