#include <stdint.h>
struct route { uint32_t prefix; uint8_t len; uint16_t nh; };
static struct route routes[1024];
static unsigned nroutes;
int lpm_linear(uint32_t addr)
{
    int best = -1, best_len = -1;
    for (unsigned i = 0; i < nroutes; i++) {
        uint32_t mask = routes[i].len ? ~0u << (32 - routes[i].len) : 0;
        if ((addr & mask) == routes[i].prefix && routes[i].len > best_len) {
            best_len = routes[i].len;
            best = routes[i].nh;
        }
    }
    return best;
}
