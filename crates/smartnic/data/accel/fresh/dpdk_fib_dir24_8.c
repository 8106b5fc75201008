/* Fresh held-out set: DPDK 22.11 lib/fib/dir24_8.h, the FIB's DIR-24-8
 * bulk lookups (a header of static inline functions and one macro that
 * stamps four of them), included verbatim at bench time from
 * $NFC_CORPUS_DIR with shim headers; the wrappers make them appear. */
#include <stdint.h>
#include <stddef.h>
#define RTE_MIN(a, b) ((a) < (b) ? (a) : (b))
#define __rte_cache_aligned
enum rte_fib_dir24_8_nh_sz { RTE_FIB_DIR24_8_1B, RTE_FIB_DIR24_8_2B, RTE_FIB_DIR24_8_4B, RTE_FIB_DIR24_8_8B };
enum rte_fib_lookup_type { RTE_FIB_LOOKUP_DEFAULT };
struct rte_fib_conf;
struct rte_rib;
typedef void (*rte_fib_lookup_fn_t)(void *, const uint32_t *, uint64_t *, unsigned int);
typedef void *rte_fib_modify_fn_t;
//@include dpdk/lib/fib/dir24_8.h
void wrap_1b(void *p, const uint32_t *ips, uint64_t *nh, unsigned n) { dir24_8_lookup_bulk_1b(p, ips, nh, n); }
void wrap_4b(void *p, const uint32_t *ips, uint64_t *nh, unsigned n) { dir24_8_lookup_bulk_4b(p, ips, nh, n); }
void wrap_0(void *p, const uint32_t *ips, uint64_t *nh, unsigned n) { dir24_8_lookup_bulk_0(p, ips, nh, n); }
void wrap_uni(void *p, const uint32_t *ips, uint64_t *nh, unsigned n) { dir24_8_lookup_bulk_uni(p, ips, nh, n); }
