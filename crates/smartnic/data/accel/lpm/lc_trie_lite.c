#include <stdint.h>
struct lcnode { uint8_t branch, skip; uint16_t adr; };
extern struct lcnode lct[];
extern int32_t lct_nh[];
int lctrie_lookup(uint32_t s)
{
    struct lcnode n = lct[0];
    uint32_t pos = n.skip;
    while (n.branch != 0) {
        uint32_t bits = (s << pos) >> (32 - n.branch);
        n = lct[n.adr + bits];
        pos += n.branch + n.skip;
    }
    return lct_nh[n.adr];
}
