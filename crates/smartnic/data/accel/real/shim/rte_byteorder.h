/* Minimal DPDK shims so single DPDK headers compile freestanding for the
 * proxy target (accelerator corpus, real implementations). */
#pragma once
#include <stdint.h>
#include <stddef.h>
#define RTE_LITTLE_ENDIAN 1234
#define RTE_BIG_ENDIAN 4321
#define RTE_BYTE_ORDER RTE_LITTLE_ENDIAN
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define __rte_always_inline inline __attribute__((always_inline))
#define __rte_unused __attribute__((unused))
#define rte_le_to_cpu_32(x) (x)
#define rte_cpu_to_be_32(x) __builtin_bswap32(x)
#define RTE_DIM(a) (sizeof(a) / sizeof((a)[0]))
#define rte_be_to_cpu_32(x) __builtin_bswap32(x)
