/* Shim for the fresh held-out set: DPDK's prefetch hint, a no-op here. */
#pragma once
static inline void rte_prefetch0(const volatile void *p) { (void)p; }
