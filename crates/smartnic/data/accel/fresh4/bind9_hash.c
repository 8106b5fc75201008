/* Fresh4 held-out set: BIND 9.18.49's lib/isc/siphash.c (SipHash-2-4 and
 * HalfSipHash-2-4) and lib/isc/crc64.c (table-driven CRC-64 with its
 * init/final), the whole files verbatim (included at bench time from
 * $NFC_CORPUS_DIR; the isc/ headers are shims with the few macros used). */
//@include bind9/lib/isc/siphash.c
//@include bind9/lib/isc/crc64.c
