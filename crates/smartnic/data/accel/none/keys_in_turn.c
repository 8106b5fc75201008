#include <stdint.h>
/* Try a list of alternative keys (aliases) in turn with an exact lookup:
   the first that exists wins. No prefix, no mask. */
struct entry;
struct entry *exact_get(const void *table, uint32_t key);
static uint32_t alias[8];
static int n_alias;

struct entry *lookup_alias(const void *table)
{
    for (int i = 0; i < n_alias; i++) {
        uint32_t key = alias[i];
        struct entry *e = exact_get(table, key);
        if (e)
            return e;
    }
    return 0;
}
