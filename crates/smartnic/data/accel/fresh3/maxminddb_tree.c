/* Fresh3 held-out set: libmaxminddb 1.7.1 src/maxminddb.c's search in a
 * MaxMind DB binary tree (find_address_in_search_tree: one address bit per
 * level until a data record, whose depth is the matched prefix length) and
 * the record readers and helpers it calls, verbatim (extracted at bench
 * time from $NFC_CORPUS_DIR; the types are the whole include/maxminddb.h,
 * "maxminddb_config.h" is a shim; record_info_s is maxminddb.c's). The
 * wrapper makes the static functions appear. */
//@include libmaxminddb/include/maxminddb.h
#include <assert.h>
#define MMDB_DATA_SECTION_SEPARATOR (16)
typedef struct record_info_s {
    uint16_t record_length;
    uint32_t (*left_record_getter)(const uint8_t *);
    uint32_t (*right_record_getter)(const uint8_t *);
    uint8_t right_record_offset;
} record_info_s;
static record_info_s record_info_for_database(const MMDB_s *const mmdb);
static uint32_t get_left_28_bit_record(const uint8_t *record);
static uint32_t get_right_28_bit_record(const uint8_t *record);
static uint32_t data_section_offset_for_record(const MMDB_s *const mmdb,
                                               uint64_t record);
static uint32_t get_uint32(const uint8_t *p);
static uint32_t get_uint24(const uint8_t *p);
//@extract libmaxminddb/src/maxminddb.c find_address_in_search_tree record_info_for_database get_left_28_bit_record get_right_28_bit_record data_section_offset_for_record get_uint32 get_uint24
int wrap_find(const MMDB_s *m, const uint8_t *a, sa_family_t f, MMDB_lookup_result_s *r) { return find_address_in_search_tree(m, a, f, r); }
