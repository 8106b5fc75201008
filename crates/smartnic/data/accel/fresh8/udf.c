/* Fresh8 held-out set: udftools 2.3's descriptor CRC (libudffs/crc.c:
 * udf_crc, CRC-16/CCITT 0x1021 MSB-first byte-table step, from the
 * OSTA-UDF standard), with its table, verbatim (extracted at bench time
 * from $NFC_CORPUS_DIR). */
#include <stdint.h>
//@extract udftools/libudffs/crc.c crc_table udf_crc
