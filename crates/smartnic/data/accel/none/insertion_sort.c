#include <stdint.h>
void isort(uint32_t *a, int n)
{
    for (int i = 1; i < n; i++) {
        uint32_t k = a[i];
        int j = i - 1;
        while (j >= 0 && a[j] > k) {
            a[j + 1] = a[j];
            j--;
        }
        a[j + 1] = k;
    }
}
