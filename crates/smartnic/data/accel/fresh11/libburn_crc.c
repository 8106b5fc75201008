/* Fresh11 held-out set: libburn 1.5.4's libburn/crc.c, Thomas Schmitt's
 * CRCs for CD sub-channel and sector data: crc_11021 (CRC-16/CCITT as a
 * plain polynomial division, augmented: the message shifted in MSB first
 * followed by 16 zero bits), crc_ccitt (the byte table built once from
 * crc_11021, then the MSB-first table step, inverted), crc_18001801b (the
 * ECMA-130 EDC CRC-32 as an augmented division, input bits mirrored unless
 * asked not to, the result mirrored) and crc_32 (the mirrored byte table
 * built once from crc_18001801b, then the reflected table step), with the
 * bit-mirroring helpers rfl8 and rfl32. Verbatim (extracted at bench time
 * from $NFC_CORPUS_DIR). */
//@extract libburn/libburn/crc.c rfl8 rfl32 crc_11021 crc_ccitt crc_18001801b crc_32
