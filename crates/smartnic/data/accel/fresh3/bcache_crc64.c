/* Fresh3 held-out set: bcache-tools 1.0.8 bcache.c (a table-driven,
 * non-reflected CRC-64 with its table), the whole file verbatim (included
 * at bench time from $NFC_CORPUS_DIR). */
//@include bcache-tools/bcache.c
