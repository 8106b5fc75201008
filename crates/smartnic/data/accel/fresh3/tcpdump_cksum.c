/* Fresh3 held-out set: tcpdump 4.99.3 checksum.c (CRC-10 table check and
 * table-driven CRC-10, OSI Fletcher checksum) and in_cksum.c (Internet
 * checksum), the whole files verbatim, and print-802_15_4.c's IEEE 802.15.4
 * CRC-16 and CRC-32 with their bit-reversal helper, verbatim (included and
 * extracted at bench time from $NFC_CORPUS_DIR; "netdissect-stdinc.h" and
 * "netdissect.h" are shims with tcpdump's types). The wrappers make the
 * static functions appear. */
//@include tcpdump/checksum.c
//@include tcpdump/in_cksum.c
//@extract tcpdump/print-802_15_4.c ieee802_15_4_crc16 ieee802_15_4_reverse32 ieee802_15_4_crc32
uint16_t wrap_crc16(netdissect_options *ndo, const u_char *p, u_int n) { return ieee802_15_4_crc16(ndo, p, n); }
uint32_t wrap_crc32(netdissect_options *ndo, const u_char *p, u_int n) { return ieee802_15_4_crc32(ndo, p, n); }
