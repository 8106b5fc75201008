/* Fresh8 held-out set: f2fs-tools 1.15.0's lib/libf2fs.c: the bitwise
 * reflected CRC-32 f2fs_cal_crc32 (CRCPOLY_LE 0xedb88320, the register a
 * parameter), the check f2fs_crc_valid (the CRC preset with the
 * superblock magic, compared with the stored one; the debug printer stays
 * external) and the directory-entry hash __f2fs_dentry_hash (ext3's TEA
 * hash: str2hashbuf packs the name, TEA_transform mixes), verbatim
 * (extracted at bench time from $NFC_CORPUS_DIR). Types, constants and
 * the DBG macro from f2fs_fs.h (its configuration struct reduced to the
 * fields DBG reads). */
#include <stdint.h>
#include <string.h>
typedef uint32_t __u32;
typedef uint32_t __le32;
typedef __le32 f2fs_hash_t;
#define cpu_to_le32(x) ((__u32)(x))
#define F2FS_HASH_COL_BIT ((0x1ULL) << 63)
#define DELTA 0x9E3779B9
#define CRCPOLY_LE 0xedb88320
#define F2FS_SUPER_MAGIC	0xF2F52010
int printf(const char *, ...);
struct f2fs_configuration { int dbg_lv; int layout; int show_file_map; };
extern struct f2fs_configuration c;
#define DBG(n, fmt, ...)						\
	do {								\
		if (c.dbg_lv >= n && !c.layout && !c.show_file_map) {	\
			printf("[%s:%4d] " fmt,				\
				__func__, __LINE__, ##__VA_ARGS__);	\
		}							\
	} while (0)
//@extract f2fs-tools/lib/libf2fs.c TEA_transform str2hashbuf __f2fs_dentry_hash f2fs_cal_crc32 f2fs_crc_valid
f2fs_hash_t wrap_f2fs_dentry_hash(const unsigned char *name, int len) { return __f2fs_dentry_hash(name, len); }
