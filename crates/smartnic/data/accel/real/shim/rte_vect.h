/* Minimal DPDK shims so single DPDK headers compile freestanding for the
 * proxy target (accelerator corpus, real implementations). */
#pragma once
#include <stdint.h>
#include <stddef.h>
/* The scalar lookupx4 only needs a 128-bit vector and its lanes. */
typedef uint32_t xmm_t __attribute__((vector_size(16)));
typedef union { xmm_t x; uint8_t u8[16]; uint16_t u16[8]; uint32_t u32[4]; uint64_t u64[2]; } rte_xmm_t;
