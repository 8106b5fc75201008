/* Shim for fresh3: the configure results the included files need
 * (riscv32 is little-endian). */
#include <stdint.h>
#include <stddef.h>
#define HAVE_TARGET_ENDIANNESS 1
