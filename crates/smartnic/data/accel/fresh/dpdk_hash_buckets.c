/* Fresh held-out set: DPDK 22.11 lib/hash, bucket searches of the
 * four-byte-key hash (rte_fbk_hash.h) and of the cuckoo hash
 * (rte_cuckoo_hash.c, lock-based variant), verbatim (extracted at bench
 * time from $NFC_CORPUS_DIR); the structures are reduced to the fields
 * these functions read, types as in DPDK. */
#include <stdint.h>
#include <stddef.h>
#define ENOENT 2
#define RTE_FBK_HASH_NAMESIZE 32
#define RTE_HASH_BUCKET_ENTRIES 8
#define EMPTY_SLOT 0
typedef uint32_t (*rte_fbk_hash_fn)(uint32_t key, uint32_t init_val);
union rte_fbk_hash_entry {
	uint64_t whole_entry;
	struct {
		uint16_t is_entry;
		uint16_t value;
		uint32_t key;
	} entry;
};
struct rte_fbk_hash_table {
	char name[RTE_FBK_HASH_NAMESIZE];
	uint32_t entries;
	uint32_t entries_per_bucket;
	uint32_t used_entries;
	uint32_t bucket_mask;
	uint32_t bucket_shift;
	rte_fbk_hash_fn hash_func;
	uint32_t init_val;
	union rte_fbk_hash_entry t[];
};
struct rte_hash_key { void *pdata; char key[0]; };
struct rte_hash_bucket {
	uint16_t sig_current[RTE_HASH_BUCKET_ENTRIES];
	uint32_t key_idx[RTE_HASH_BUCKET_ENTRIES];
	uint8_t flag[RTE_HASH_BUCKET_ENTRIES];
	void *next;
};
struct rte_hash { uint32_t key_len; uint32_t key_entry_size; void *key_store; };
int rte_hash_cmp_eq(const void *key1, const void *key2, const struct rte_hash *h);
//@extract dpdk/lib/hash/rte_fbk_hash.h rte_fbk_hash_get_bucket rte_fbk_hash_lookup_with_bucket rte_fbk_hash_lookup
//@extract dpdk/lib/hash/rte_cuckoo_hash.c search_one_bucket_l
int wrap_fbk(const struct rte_fbk_hash_table *ht, uint32_t key) { return rte_fbk_hash_lookup(ht, key); }
int32_t wrap_cuckoo(const struct rte_hash *h, const void *key, uint16_t sig, void **data, const struct rte_hash_bucket *bkt) { return search_one_bucket_l(h, key, sig, data, bkt); }
