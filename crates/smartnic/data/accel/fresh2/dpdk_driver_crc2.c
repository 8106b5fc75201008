/* Fresh2 held-out set: CRCs and a hash of DPDK 22.11 NIC drivers not used
 * elsewhere (bnx2x ecore, dpaa2 TLU hash, the SWX table selector's generic
 * CRC-32C), verbatim (extracted at bench time from $NFC_CORPUS_DIR); the
 * tables are declared as in those files. The wrappers make the static
 * functions appear. */
#include <stdint.h>
#include <stddef.h>
static unsigned int sbox_tbl[16];
static int pbox_tbl[16] = {5, 9, 0, 13, 7, 2, 11, 14, 1, 4, 12, 8, 3, 15, 6, 10 };
static unsigned int mix_tbl[8][16];
static unsigned int crc32_table[256];
//@extract dpdk/drivers/net/bnx2x/ecore_sp.c ecore_calc_crc8 ecore_calc_crc32
//@extract dpdk/drivers/net/dpaa2/base/dpaa2_tlu_hash.c sbox stage fast_stage fast_hash32 byte_crc32 init_crc32_table crc32_string
//@extract dpdk/lib/table/rte_swx_table_selector.c crc32_u64_generic
unsigned int wrap_sbox(unsigned int x) { return sbox(x); }
unsigned int wrap_stage(unsigned int x) { return stage(x); }
unsigned int wrap_fast(unsigned int x) { return fast_hash32(x); }
void wrap_init(void) { init_crc32_table(); }
unsigned int wrap_string(unsigned char *d, int n, unsigned int c) { return crc32_string(d, n, c); }
uint64_t wrap_u64(uint64_t c, uint64_t v) { return crc32_u64_generic(c, v); }
