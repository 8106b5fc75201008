/* Fresh8 held-out set: exfatprogs 1.2.0's checksums: the boot-region
 * checksum boot_calc_checksum (lib/libexfat.c: rotate right by one and add
 * each byte, three bytes skipped) and the directory-entry checksum
 * exfat_calc_dentry_checksum (lib/exfat_dir.c: the same rotate-add over
 * 16 bits) with its caller calc_dentry_set_checksum, verbatim (extracted
 * at bench time from $NFC_CORPUS_DIR). The dentry is exfat_ondisk.h's 32
 * bytes; exfat_calc_name_hash (lib/exfat_dir.c: the rotate-add over
 * the up-cased name) reads exfat.h's upcase table from the volume. */
#include <stdint.h>
#include <stdbool.h>
typedef uint16_t __le16;
#define le16_to_cpu(x) ((uint16_t)(x))
#define cpu_to_le16(x) ((uint16_t)(x))
struct exfat { uint16_t *upcase_table; };
typedef uint32_t __le32;
#define MIN_FILE_DENTRIES 3
struct exfat_dentry { uint8_t type; uint8_t raw[31]; };
//@extract exfatprogs/lib/libexfat.c boot_calc_checksum
//@extract exfatprogs/lib/exfat_dir.c exfat_calc_dentry_checksum calc_dentry_set_checksum exfat_calc_name_hash
uint16_t wrap_dentry_set_checksum(struct exfat_dentry *dset, int dcount) { return calc_dentry_set_checksum(dset, dcount); }
