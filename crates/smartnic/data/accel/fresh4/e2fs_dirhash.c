/* Fresh4 held-out set: e2fsprogs 1.47.0's lib/ext2fs/dirhash.c (ext4
 * directory hashes: TEA rounds, half-MD4 rounds, the legacy hash, the
 * string packer and the dispatchers), the whole file verbatim (included at
 * bench time from $NFC_CORPUS_DIR; the ext2fs headers are shims). */
//@include e2fsprogs/lib/ext2fs/dirhash.c
