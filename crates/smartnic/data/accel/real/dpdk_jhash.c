/* DPDK's jhash (lib/hash/rte_jhash.h), real code from the corpus: a hard negative. */
#include <rte_config.h>
#include <rte_jhash.h>
uint32_t wrap_jhash(const void *k, uint32_t n, uint32_t i) { return rte_jhash(k, n, i); }
uint32_t wrap_jhash_3words(uint32_t a, uint32_t b, uint32_t c, uint32_t i) { return rte_jhash_3words(a, b, c, i); }
