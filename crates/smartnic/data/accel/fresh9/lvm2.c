/* Fresh9 held-out set: LVM2 2.03.16's lib/misc/crc.c _calc_crc_old: the
 * reflected CRC-32 with a 16-entry nibble table, two nibble steps per
 * byte, register a parameter; verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR). */
#include <stdint.h>
//@extract lvm2/lib/misc/crc.c _calc_crc_old
/* _calc_crc_old is static: called here so that -O0 emits it. */
uint32_t wrap_calc_crc_old(uint32_t initial, const uint8_t *buf, uint32_t size)
{
	return _calc_crc_old(initial, buf, size);
}
