/* Fresh3 held-out set: Unbound 1.17.1's EDNS client-subnet cache tree
 * lookup (edns-subnet/addrtree.c's addrtree_find, the bit and prefix
 * helpers and the LRU update it calls), verbatim (extracted at bench time
 * from $NFC_CORPUS_DIR; the types are the whole edns-subnet/addrtree.h). */
#include <stdint.h>
#include <stddef.h>
#include <time.h>
#define log_assert(x) do { } while (0)
//@include unbound/edns-subnet/addrtree.h
//@extract unbound/edns-subnet/addrtree.c lru_pop lru_push lru_update getbit cmpbit bits_common issub addrtree_find
