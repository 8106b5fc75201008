#include <stdint.h>
struct hent { uint32_t key; int nh; uint8_t used; };
static struct hent tabs[33][256];
static uint32_t present;
int lpm_hash_lengths(uint32_t a)
{
    for (int len = 32; len >= 0; len--) {
        if (len < 32 && !(present & (1u << len)))
            continue;
        uint32_t key = len ? a & (0xffffffffu << (32 - len)) : 0;
        unsigned i = (key * 2654435761u) >> 24;
        for (int probe = 0; probe < 4; probe++) {
            struct hent *e = &tabs[len][(i + probe) & 255];
            if (!e->used)
                break;
            if (e->key == key)
                return e->nh;
        }
    }
    return -1;
}
