/* Fresh8 held-out set: dfu-util 0.11's file CRC (src/dfu_file.c):
 * crc32_byte, one reflected CRC-32 byte-table step, and
 * dfu_file_write_crc, which runs it over a buffer and writes the buffer
 * to a file (write/err stay external), with the table, verbatim
 * (extracted at bench time from $NFC_CORPUS_DIR). */
#include <stdint.h>
#include <stddef.h>
#define EX_IOERR 74
extern long write(int, const void *, unsigned long);
extern void err(int, const char *, ...);
//@extract dfu-util/src/dfu_file.c crc32_table crc32_byte dfu_file_write_crc
