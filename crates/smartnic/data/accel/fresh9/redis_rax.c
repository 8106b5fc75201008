/* Fresh9 held-out set: Redis 7.0.15's radix tree (rax.c): raxLowWalk walks
 * the key down compressed and branching nodes as far as it matches and
 * reports where it stopped (no lookup result of its own); raxFind is the
 * exact lookup on top of it (found only if the whole key was consumed at a
 * key node); raxGetData reads a node's value. Verbatim (extracted at bench
 * time from $NFC_CORPUS_DIR); the types are rax.h's (included whole), the
 * node macros rax.c's. */
#include <stddef.h>
#include <string.h>
//@include redis/src/rax.h
#define debugf(...)
#define debugnode(msg,n)
#define raxPadding(nodesize) ((sizeof(void*)-((nodesize+4) % sizeof(void*))) & (sizeof(void*)-1))
#define raxNodeFirstChildPtr(n) ((raxNode**) ( \
    (n)->data + \
    (n)->size + \
    raxPadding((n)->size)))
#define raxNodeCurrentLength(n) ( \
    sizeof(raxNode)+(n)->size+ \
    raxPadding((n)->size)+ \
    ((n)->iscompr ? sizeof(raxNode*) : sizeof(raxNode*)*(n)->size)+ \
    (((n)->iskey && !(n)->isnull)*sizeof(void*)) \
)
void *raxNotFound = (void*)"rax-not-found-pointer";
int raxStackPush(raxStack *ts, void *ptr);
//@extract redis/src/rax.c raxGetData raxLowWalk raxFind
