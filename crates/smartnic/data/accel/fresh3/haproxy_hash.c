/* Fresh3 held-out set: HAProxy 2.6.12 src/hash.c (the whole file: the
 * wt6, djb2 and sdbm string hashes, a bitwise CRC-32 and a table-driven
 * CRC-32C), verbatim (included at bench time from $NFC_CORPUS_DIR; its
 * <haproxy/hash.h> is shim/haproxy/hash.h). */
//@include haproxy/src/hash.c
