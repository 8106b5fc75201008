/* Fresh8 held-out set: ucspi-tcp 0.88's access rules (rules.c): doit
 * looks up, in a cdb, the connection's `info@ip`, the exact IP, then the
 * IP shortened at each dot from the longest prefix down (the first hit
 * wins: the longest matching IP prefix), then host-name suffixes;
 * dorule is one cdb lookup, verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR). stralloc, cdb and alloc stay external (their
 * prototypes are stralloc.h's, cdb.h's and alloc.h's). */
#include <stdint.h>
typedef uint32_t uint32;
typedef struct stralloc { char *s; unsigned int len; unsigned int a; } stralloc;
struct cdb {
  char *map;
  int fd;
  uint32 size;
  uint32 loop;
  uint32 khash;
  uint32 kpos;
  uint32 hpos;
  uint32 hslots;
  uint32 dpos;
  uint32 dlen;
};
#define cdb_datapos(c) ((c)->dpos)
#define cdb_datalen(c) ((c)->dlen)
extern int cdb_find(struct cdb *, char *, unsigned int);
extern int cdb_read(struct cdb *, char *, unsigned int, uint32);
extern void cdb_init(struct cdb *, int);
extern void cdb_free(struct cdb *);
extern int stralloc_copys(stralloc *, const char *);
extern int stralloc_cats(stralloc *, const char *);
extern char *alloc(unsigned int);
extern void alloc_free(char *);
stralloc rules_name = {0};
static struct cdb c;
//@extract ucspi-tcp/rules.c dorule doit rules
