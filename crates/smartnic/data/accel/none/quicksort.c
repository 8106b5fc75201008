static void swap(int *a, int *b) { int t = *a; *a = *b; *b = t; }
void quicksort(int *v, int lo, int hi)
{
    while (lo < hi) {
        int p = v[(lo + hi) / 2], i = lo, j = hi;
        while (i <= j) {
            while (v[i] < p) i++;
            while (v[j] > p) j--;
            if (i <= j) { swap(&v[i], &v[j]); i++; j--; }
        }
        if (j - lo < hi - i) { quicksort(v, lo, j); lo = i; } else { quicksort(v, i, hi); hi = j; }
    }
}
