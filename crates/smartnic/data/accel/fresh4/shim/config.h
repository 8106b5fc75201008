/* Shim for fresh4: configure results the included files need (riscv32 is
 * little-endian, so WORDS_BIGENDIAN stays undefined). */
#include <stdint.h>
#include <stddef.h>
