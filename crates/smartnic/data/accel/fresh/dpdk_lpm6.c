/* Fresh held-out set: DPDK 22.11 lib/lpm/rte_lpm6.c, the IPv6 LPM lookup
 * (a tbl24 plus tbl8 levels stepped by the address bytes), verbatim
 * (extracted at bench time from $NFC_CORPUS_DIR); structures and
 * constants copied from the same file. */
#include <stdint.h>
#include <stddef.h>
#define EINVAL 22
#define ENOENT 2
#define RTE_LPM6_NAMESIZE 32
#define RTE_LPM6_TBL24_NUM_ENTRIES        (1 << 24)
#define RTE_LPM6_TBL8_GROUP_NUM_ENTRIES         256
#define RTE_LPM6_VALID_EXT_ENTRY_BITMASK 0xA0000000
#define RTE_LPM6_LOOKUP_SUCCESS          0x20000000
#define RTE_LPM6_TBL8_BITMASK            0x001FFFFF
#define LOOKUP_FIRST_BYTE                         4
#define BYTE_SIZE                                 8
#define BYTES2_SIZE                              16
struct rte_hash;
struct rte_lpm_tbl8_hdr;
struct rte_lpm6_tbl_entry {
	uint32_t next_hop:	21;
	uint32_t depth	:8;
	uint32_t valid     :1;
	uint32_t valid_group :1;
	uint32_t ext_entry :1;
};
struct rte_lpm6 {
	char name[RTE_LPM6_NAMESIZE];
	uint32_t max_rules;
	uint32_t used_rules;
	uint32_t number_tbl8s;
	struct rte_hash *rules_tbl;
	struct rte_lpm6_tbl_entry tbl24[RTE_LPM6_TBL24_NUM_ENTRIES];
	uint32_t *tbl8_pool;
	uint32_t tbl8_pool_pos;
	struct rte_lpm_tbl8_hdr *tbl8_hdrs;
	struct rte_lpm6_tbl_entry tbl8[0];
};
//@extract dpdk/lib/lpm/rte_lpm6.c lookup_step rte_lpm6_lookup
