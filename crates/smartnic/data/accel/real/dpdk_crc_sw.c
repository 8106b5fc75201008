/* DPDK's software CRC32-C (lib/hash/rte_crc_sw.h), real code from the corpus:
 * the wrappers make each static inline function appear in the IR. */
#include <rte_config.h>
#include <rte_crc_sw.h>
uint32_t wrap_1byte(uint8_t d, uint32_t i) { return crc32c_1byte(d, i); }
uint32_t wrap_2bytes(uint16_t d, uint32_t i) { return crc32c_2bytes(d, i); }
uint32_t wrap_1word(uint32_t d, uint32_t i) { return crc32c_1word(d, i); }
uint32_t wrap_2words(uint64_t d, uint32_t i) { return crc32c_2words(d, i); }
