/* Fresh12 held-out set: GRUB 2.06's grub-core/lib/crc64.c: reflect (bit
 * mirror helper), init_crc64_table (the reflected CRC-64/ECMA table,
 * built MSB first and mirrored: a table fill) and crc64_write (reflected
 * byte-table steps on a register kept inverted in the context). Verbatim
 * (extracted at bench time from $NFC_CORPUS_DIR); the types, the byte-order
 * macros (little-endian: the identity) and the table's static declaration
 * are written here. */
#include <stddef.h>
#include <stdint.h>
typedef uint8_t grub_uint8_t;
typedef uint64_t grub_uint64_t;
typedef size_t grub_size_t;
#define grub_le_to_cpu64(x) (x)
#define grub_cpu_to_le64(x) (x)
static grub_uint64_t crc64_table [256];
//@extract grub2/grub-core/lib/crc64.c reflect init_crc64_table crc64_write
/* The static functions are called here so that -O0 emits them. */
void wrap_crc64(void *ctx, const void *buf, grub_size_t n)
{
	init_crc64_table ();
	crc64_write (ctx, buf, n);
}
