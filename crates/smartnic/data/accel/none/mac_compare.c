#include <stdint.h>
int mac_lookup(const uint8_t (*macs)[6], int n, const uint8_t *m)
{
    for (int i = 0; i < n; i++) {
        int j = 0;
        while (j < 6 && macs[i][j] == m[j])
            j++;
        if (j == 6)
            return i;
    }
    return -1;
}
