/* Fresh4 held-out set: nginx 1.22.1's CRC-32s (src/core/ngx_crc32.h:
 * nibble-table and byte-table CRC-32 and the incremental update), its
 * rotate-and-add "ngx_crc" (src/core/ngx_crc.h; despite the name not a
 * CRC), MurmurHash2 (ngx_murmurhash.c) and the exact-match hash table's
 * key and lookup (ngx_hash.c), verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR). Types and macros are ngx_config.h's, ngx_core.h's and
 * ngx_hash.h's, reduced to what the functions use; the tables stay
 * external as in ngx_crc32.c. The wrappers make the static inline
 * functions appear. */
#include <stdint.h>
#include <stddef.h>
typedef unsigned char u_char;
typedef uintptr_t ngx_uint_t;
typedef intptr_t ngx_int_t;
#define ngx_inline inline
#define ngx_hash(key, c) ((ngx_uint_t) key * 31 + c)
#define ngx_align_ptr(p, a) \
    (u_char *) (((uintptr_t) (p) + ((uintptr_t) a - 1)) & ~((uintptr_t) a - 1))
typedef struct {
    void *value;
    unsigned short len;
    u_char name[1];
} ngx_hash_elt_t;
typedef struct {
    ngx_hash_elt_t **buckets;
    ngx_uint_t size;
} ngx_hash_t;
extern uint32_t *ngx_crc32_table_short;
extern uint32_t ngx_crc32_table256[];
//@extract nginx/src/core/ngx_crc32.h ngx_crc32_short ngx_crc32_long ngx_crc32_update
//@extract nginx/src/core/ngx_crc.h ngx_crc
//@extract nginx/src/core/ngx_murmurhash.c ngx_murmur_hash2
//@extract nginx/src/core/ngx_hash.c ngx_hash_find ngx_hash_key
uint32_t wrap_crc32_short(u_char *p, size_t len) { return ngx_crc32_short(p, len); }
uint32_t wrap_crc32_long(u_char *p, size_t len) { return ngx_crc32_long(p, len); }
void wrap_crc32_update(uint32_t *crc, u_char *p, size_t len) { ngx_crc32_update(crc, p, len); }
uint32_t wrap_crc(u_char *p, size_t len) { return ngx_crc(p, len); }
