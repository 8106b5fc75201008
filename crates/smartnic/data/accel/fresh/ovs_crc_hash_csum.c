/* Fresh held-out set: Open vSwitch 3.x lib/crc32c.c, lib/hash.h (the
 * portable mhash build), lib/hash.c, lib/jhash.c, lib/csum.c, verbatim
 * (extracted at bench time from $NFC_CORPUS_DIR). */
#include <stdint.h>
#include <stddef.h>
#include <string.h>
typedef uint32_t ovs_be32;
typedef uint16_t ovs_be16;
#define OVS_FORCE
#define ALIGNED_CAST(T, p) ((T) (void *) (p))
#define BUILD_ASSERT_DECL(x)
extern const uint32_t crc32Table[256];
static inline uint32_t get_unaligned_u32(const uint32_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint16_t get_unaligned_be16(const ovs_be16 *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static inline uint32_t csum_add16(uint32_t partial, ovs_be16 new) { return partial + new; }
//@extract openvswitch/lib/crc32c.c crc32c
//@extract openvswitch/lib/hash.h hash_rot mhash_add__ mhash_add mhash_finish hash_add hash_finish
//@extract openvswitch/lib/hash.c hash_bytes
//@extract openvswitch/lib/jhash.c jhash_rot jhash_mix jhash_final jhash_words jhash_bytes
//@extract openvswitch/lib/csum.c csum_continue csum_finish
