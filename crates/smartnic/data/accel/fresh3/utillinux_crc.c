/* Fresh3 held-out set: util-linux 2.38.1 lib/crc32.c (table-driven CRC-32,
 * plain and with an excluded range) and lib/crc32c.c (table-driven
 * CRC-32C), the whole files verbatim (included at bench time from
 * $NFC_CORPUS_DIR; their "crc32.h" and "crc32c.h" are shims). */
//@include util-linux/lib/crc32.c
//@include util-linux/lib/crc32c.c
