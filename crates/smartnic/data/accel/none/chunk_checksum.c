#include <stdint.h>
#include <stddef.h>
/* Internet checksum over a vector of chunks: a cursor and a length are
   reloaded from each chunk and then consumed (counted down, advanced). */
struct chunk { const uint16_t *ptr; int len; };

uint16_t chunk_checksum(const struct chunk *v, int n)
{
    uint32_t sum = 0;
    int left = 0;
    const uint16_t *w;
    for (; n > 0; v++, n--) {
        if (v->len == 0)
            continue;
        w = v->ptr;
        left = v->len;
        while ((left -= 2) >= 0)
            sum += *w++;
        if (left == -1)
            sum += *(const uint8_t *)w;
    }
    sum = (sum >> 16) + (sum & 0xffff);
    sum += sum >> 16;
    return (uint16_t)~sum;
}
