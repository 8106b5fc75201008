/* Shim for fresh4/e2fs_*.c: e2fsprogs' fixed-width types. */
#ifndef FRESH4_EXT2_TYPES_H
#define FRESH4_EXT2_TYPES_H
#include <stdint.h>
typedef uint8_t __u8;
typedef uint16_t __u16;
typedef uint32_t __u32;
typedef uint64_t __u64;
typedef int32_t __s32;
#endif
