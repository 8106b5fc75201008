/* Fresh12 held-out set: BorgBackup 1.4.5: src/borg/algorithms/
 * crc32_slice_by_8.c crc32_slice_by_8 (Stephan Brumme's reflected CRC-32
 * slicing by eight, four rounds unrolled, byte-table steps before and
 * after) and src/borg/_chunker.c buzhash (the cyclic-polynomial rolling
 * hash of a window: table entries rotated by their distance, xored) and
 * buzhash_update (one window step). Verbatim (extracted at bench time
 * from $NFC_CORPUS_DIR), the constant tables with them; BORG_BIG_ENDIAN
 * is little-endian's 0 and the rotate macro is written here. */
#include <stddef.h>
#include <stdint.h>
#define BORG_BIG_ENDIAN 0
#define _le32toh(x) (x)
//@extract borgbackup/src/borg/algorithms/crc32_slice_by_8.c Crc32Lookup crc32_slice_by_8
#define BARREL_SHIFT(v, shift) (((v) << (shift)) | ((v) >> ((32 - (shift)) & 0x1f)))
//@extract borgbackup/src/borg/_chunker.c buzhash buzhash_update
/* The static functions are called here so that -O0 emits them. */
uint32_t wrap_borg(const unsigned char *d, size_t n, const uint32_t *h)
{
	return buzhash(d, n, h) ^ buzhash_update(1, d[0], d[1], n, h);
}
