#include <stdint.h>
#include <stddef.h>
struct bst { uint32_t key; int val; struct bst *left, *right; };
int bst_find(const struct bst *t, uint32_t key)
{
    while (t) {
        if (key == t->key)
            return t->val;
        t = key < t->key ? t->left : t->right;
    }
    return -1;
}
