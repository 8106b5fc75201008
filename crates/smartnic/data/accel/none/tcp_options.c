#include <stdint.h>
int tcp_mss(const uint8_t *opt, int len)
{
    int i = 0;
    while (i < len) {
        uint8_t kind = opt[i];
        if (kind == 0)
            break;
        if (kind == 1) { i++; continue; }
        if (i + 1 >= len)
            return -1;
        uint8_t olen = opt[i + 1];
        if (olen < 2 || i + olen > len)
            return -1;
        if (kind == 2 && olen == 4)
            return opt[i + 2] << 8 | opt[i + 3];
        i += olen;
    }
    return 0;
}
