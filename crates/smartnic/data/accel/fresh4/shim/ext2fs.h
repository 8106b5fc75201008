/* Shim for fresh4/e2fs_*.c: what lib/ext2fs/crc32c.c and dirhash.c use
 * from e2fsprogs' ext2fs.h, ext2_fs.h and ext2_err.h. */
#ifndef FRESH4_EXT2FS_H
#define FRESH4_EXT2FS_H
#include <stdint.h>
#include <ext2fs/ext2_types.h>
#define unlikely(x) __builtin_expect(!!(x), 0)
#define EXT2FS_ATTR(x) __attribute__(x)
typedef long errcode_t;
typedef __u32 ext2_dirhash_t;
#define EXT2_HASH_LEGACY 0
#define EXT2_HASH_HALF_MD4 1
#define EXT2_HASH_TEA 2
#define EXT2_HASH_LEGACY_UNSIGNED 3
#define EXT2_HASH_HALF_MD4_UNSIGNED 4
#define EXT2_HASH_TEA_UNSIGNED 5
#define EXT2_HASH_SIPHASH 6
#define EXT4_CASEFOLD_FL 0x40000000
#define EXT2_ET_DIRHASH_UNSUPP (2133571436L)
#define EINVAL 22
struct ext2fs_nls_table;
struct ext2fs_nls_ops {
	int (*casefold)(const struct ext2fs_nls_table *charset,
			const unsigned char *str, size_t len,
			unsigned char *dest, size_t dlen);
};
struct ext2fs_nls_table {
	int version;
	const struct ext2fs_nls_ops *ops;
};
__u32 ext2fs_cpu_to_be32(__u32);
__u32 ext2fs_be32_to_cpu(__u32);
#endif
