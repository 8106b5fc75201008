#pragma once
/* Shim for FRR's zebra.h (fresh2 held-out set): only what lib/jhash.c and
 * lib/checksum.c use. */
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#define assert(x) ((void)0)
#define MIN(a, b) ((a) < (b) ? (a) : (b))
struct iovec { void *iov_base; size_t iov_len; };
#define htons(x) ((uint16_t)__builtin_bswap16((uint16_t)(x)))
