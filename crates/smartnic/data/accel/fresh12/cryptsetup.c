/* Fresh12 held-out set: cryptsetup 2.8.8's lib/crypto_backend/crc32.c:
 * compute_crc32 (the reflected byte-table step, the table a parameter,
 * no final inversion) with its wrappers crypt_crc32 (CRC-32's table) and
 * crypt_crc32c (CRC-32C's). Verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR), the constant tables with them. */
#include <stddef.h>
#include <stdint.h>
//@extract cryptsetup/lib/crypto_backend/crc32.c crc32_tab crc32c_tab compute_crc32 crypt_crc32 crypt_crc32c
