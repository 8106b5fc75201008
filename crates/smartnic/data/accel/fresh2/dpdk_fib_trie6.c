/* Fresh2 held-out set: DPDK 22.11 lib/fib/trie.h, the IPv6 FIB's bulk
 * lookups (a header of static inline functions and one macro that stamps
 * three of them), included verbatim at bench time from $NFC_CORPUS_DIR;
 * the wrappers make them appear. */
#include <stdint.h>
#include <stddef.h>
#define __rte_cache_aligned
#define RTE_FIB6_IPV6_ADDR_SIZE 16
enum rte_fib_trie_nh_sz { RTE_FIB6_TRIE_2B = 1, RTE_FIB6_TRIE_4B, RTE_FIB6_TRIE_8B };
enum rte_fib6_lookup_type { RTE_FIB6_LOOKUP_DEFAULT };
struct rte_fib6_conf;
struct rte_fib6;
typedef void (*rte_fib6_lookup_fn_t)(void *, uint8_t[][RTE_FIB6_IPV6_ADDR_SIZE], uint64_t *, unsigned int);
//@include dpdk/lib/fib/trie.h
void wrap_2b(void *p, uint8_t ips[][16], uint64_t *nh, unsigned n) { rte_trie_lookup_bulk_2b(p, ips, nh, n); }
void wrap_4b(void *p, uint8_t ips[][16], uint64_t *nh, unsigned n) { rte_trie_lookup_bulk_4b(p, ips, nh, n); }
void wrap_8b(void *p, uint8_t ips[][16], uint64_t *nh, unsigned n) { rte_trie_lookup_bulk_8b(p, ips, nh, n); }
