/* Fresh2 held-out set: FRR 8.4.4 lib/jhash.c (Bob Jenkins' hash) and
 * lib/checksum.c (Internet checksum over an iovec, ISO Fletcher),
 * included verbatim at bench time from $NFC_CORPUS_DIR with the shim
 * headers in fresh2/shim. */
//@include frr/lib/jhash.c
//@include frr/lib/checksum.c
