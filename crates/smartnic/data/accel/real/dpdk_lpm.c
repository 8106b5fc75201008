/* DPDK's IPv4 LPM lookup (lib/lpm/rte_lpm.h, DIR-24-8, scalar build), real
 * code from the corpus: the wrappers make each static inline function
 * appear in the IR. */
#include <rte_config.h>
#include <rte_lpm.h>
int wrap_lookup(const struct rte_lpm *l, uint32_t ip, uint32_t *nh) { return rte_lpm_lookup(l, ip, nh); }
int wrap_lookup_bulk(const struct rte_lpm *l, const uint32_t *ips, uint32_t *nh, unsigned n) { return rte_lpm_lookup_bulk_func(l, ips, nh, n); }
void wrap_lookupx4(const struct rte_lpm *l, xmm_t ip, uint32_t hop[4], uint32_t d) { rte_lpm_lookupx4(l, ip, hop, d); }
