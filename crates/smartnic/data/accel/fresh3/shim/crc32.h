/* Shim for fresh3/utillinux_crc.c: what lib/crc32.c needs from its header. */
#include <stdint.h>
#include <stddef.h>
