/* DPDK's software Toeplitz hash (lib/hash/rte_thash.h, rte_softrss), real
 * code from the corpus: a hard negative (a hash, neither CRC nor LPM). */
#include <rte_config.h>
#include <rte_thash.h>
uint32_t wrap_softrss(uint32_t *t, uint32_t n, const uint8_t *k) { return rte_softrss(t, n, k); }
uint32_t wrap_softrss_be(uint32_t *t, uint32_t n, const uint8_t *k) { return rte_softrss_be(t, n, k); }
