/* Fresh12 held-out set: mdadm 4.6: crc32c.c crc32_le_generic (reflected
 * bitwise CRC-32, the polynomial a parameter) and crc32_be_generic (MSB
 * first, the same), with the wrappers crc32_le, crc32c_le and crc32_be;
 * super1.c calc_sb_1_csum (the v1 superblock checksum: a 64-bit sum of
 * 32-bit words, folded) and Grow.c bsb_csum (the backup superblock's
 * "csum": a shift-by-three-and-add over the length, of its first byte).
 * Verbatim (extracted at bench time from $NFC_CORPUS_DIR); the polynomial
 * constants are crc32c.c's, the byte-order macros are the identity here
 * and struct mdp_superblock_1 is a stand-in of the real size with the
 * offsets the function checks. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
typedef uint32_t __u32;
typedef uint16_t __u16;
#define __le32_to_cpu(x) (x)
#define __le16_to_cpu(x) (x)
#define __cpu_to_le32(x) (x)
#define CRCPOLY_LE 0xedb88320
#define CRCPOLY_BE 0x04c11db7
#define CRC32C_POLY_LE 0x82F63B78
//@extract mdadm/crc32c.c crc32_le_generic crc32_le crc32c_le crc32_be_generic crc32_be
struct mdp_superblock_1 {
	uint8_t head[128];
	uint64_t data_offset;
	uint8_t mid[56];
	uint64_t utime;
	uint32_t sb_csum;
	uint32_t max_dev;
	uint8_t tail[48];
};
//@extract mdadm/super1.c calc_sb_1_csum
//@extract mdadm/Grow.c bsb_csum
/* The static functions are called here so that -O0 emits them. */
unsigned int wrap_mdadm(struct mdp_superblock_1 *sb, char *buf, int len)
{
	return calc_sb_1_csum(sb) ^ bsb_csum(buf, len);
}
