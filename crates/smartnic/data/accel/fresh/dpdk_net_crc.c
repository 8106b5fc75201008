/* Fresh held-out set: DPDK 22.11 lib/net/rte_net_crc.c, the scalar CRC
 * code, verbatim (extracted at bench time from $NFC_CORPUS_DIR). The
 * wrappers make the static functions appear in the IR. */
#include <stdint.h>
#define CRC_LUT_SIZE 256
#define __rte_always_inline inline
//@extract dpdk/lib/net/rte_net_crc.c reflect_32bits crc32_eth_init_lut crc32_eth_calc_lut
void wrap_init(uint32_t poly, uint32_t *lut) { crc32_eth_init_lut(poly, lut); }
uint32_t wrap_calc(const uint8_t *d, uint32_t n, uint32_t c, const uint32_t *lut) { return crc32_eth_calc_lut(d, n, c, lut); }
