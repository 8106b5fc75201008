/* Fresh7 held-out set: libogg 1.3.5's page CRC (framing.c:
 * _os_update_crc, CRC-32 MSB-first, polynomial 0x04c11db7, slicing-by-8
 * over eight tables with a byte-table tail; crctable.h: its static const
 * tables) and the bit packer oggpack_write (bitwise.c, with its static
 * mask table), verbatim (extracted at bench time from $NFC_CORPUS_DIR).
 * Reallocation and the buffer reset stay external. */
#include <stdint.h>
#include <limits.h>
typedef uint32_t ogg_uint32_t;
typedef struct {
  long endbyte;
  int  endbit;
  unsigned char *buffer;
  unsigned char *ptr;
  long storage;
} oggpack_buffer;
#define BUFFER_INCREMENT 256
void *_ogg_realloc(void *, long);
void oggpack_writeclear(oggpack_buffer *b);
//@extract libogg/src/crctable.h crc_lookup
//@extract libogg/src/framing.c _os_update_crc
//@extract libogg/src/bitwise.c mask oggpack_write
ogg_uint32_t wrap_os_update_crc(ogg_uint32_t crc, unsigned char *buffer, int size) { return _os_update_crc(crc, buffer, size); }
