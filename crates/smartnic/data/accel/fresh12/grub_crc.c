/* Fresh12 held-out set: GRUB 2.06's grub-core/lib/crc.c: reflect (bit
 * mirror helper), init_crc32c_table (the reflected CRC-32C table built
 * MSB first with polynomial 0x1edc6f41 and mirrored: a table fill) and
 * grub_getcrc32c (reflected byte-table steps, preset and inverted, the
 * table filled at first use). Verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR); the types and the table's static declaration are
 * written here. */
#include <stddef.h>
#include <stdint.h>
typedef uint8_t grub_uint8_t;
typedef uint32_t grub_uint32_t;
static grub_uint32_t crc32c_table [256];
//@extract grub2/grub-core/lib/crc.c reflect init_crc32c_table grub_getcrc32c
