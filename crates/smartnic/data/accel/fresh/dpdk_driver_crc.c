/* Fresh held-out set: CRCs of DPDK 22.11 NIC drivers (qede, axgbe,
 * e1000, bnxt truflow, sfc efx, nfp), verbatim (extracted at bench time
 * from $NFC_CORPUS_DIR). The wrappers make static functions appear. */
#include <stdint.h>
#include <stddef.h>
typedef uint32_t u32;
typedef uint16_t u16;
typedef uint8_t u8;
typedef uint16_t __le16;
#define STATIC static
#define DEBUGFUNC(x)
#define VLAN_VID_MASK 0x0fff
#define __in
#define __checkReturn
#define __in_ecount(n)
#define CRCPOLY_BE 0x04c11db7
static int get_lastbit_set(int x) { int r = 0; while (x) { r++; x >>= 1; } return r; }
extern const uint32_t tf_hash_crc32tbl[256];
extern const uint32_t efx_crc32_table[256];
//@extract dpdk/drivers/net/qede/base/bcm_osal.c qede_crc32
//@extract dpdk/drivers/net/axgbe/axgbe_dev.c axgbe_vid_crc32_le
//@extract dpdk/drivers/net/e1000/base/e1000_ich8lan.c e1000_calc_rx_da_crc
//@extract dpdk/drivers/net/bnxt/tf_core/tf_hash.c tf_hash_calc_crc32i
//@extract dpdk/drivers/common/sfc_efx/base/efx_crc32.c efx_crc32_calculate
//@extract dpdk/drivers/net/nfp/nfpcore/nfp_crc.c nfp_crc32_be_generic
u32 wrap_axgbe(__le16 v) { return axgbe_vid_crc32_le(v); }
u32 wrap_e1000(u8 mac[]) { return e1000_calc_rx_da_crc(mac); }
uint32_t wrap_nfp(uint32_t c, unsigned char const *p, size_t n) { return nfp_crc32_be_generic(c, p, n, CRCPOLY_BE); }
