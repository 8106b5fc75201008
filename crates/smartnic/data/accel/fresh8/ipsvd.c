/* Fresh8 held-out set: ipsvd 1.0.0's cdb access rules (src/ipsvd_check.c):
 * ipsvd_check_cdb looks the client's IP up in a cdb, then the IP
 * shortened at each dot from the longest prefix down (the first hit wins:
 * the longest matching IP prefix), then host-name suffixes, then the
 * default; ipsvd_check_cdbentry is one cdb lookup with its result
 * decoding; and the cdb key hash (src/cdb_hash.c, djb's), verbatim
 * (extracted at bench time from $NFC_CORPUS_DIR). stralloc, cdb, byte/str
 * and the instruction parser ipsvd_instruct stay external (prototypes as
 * stralloc.h, cdb.h, byte.h, str.h, ipsvd_check.c). */
#include <stdint.h>
typedef uint32_t uint32;
typedef struct stralloc { char *s; unsigned int len; unsigned int a; } stralloc;
#define CDB_HASHSTART 5381
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
#define IPSVD_ERR 0
#define IPSVD_DENY 1
#define IPSVD_DEFAULT 2
#define IPSVD_INSTRUCT 3
#define IPSVD_EXEC 4
#define IPSVD_FORWARD 5
extern int cdb_find(struct cdb *, char *, unsigned int);
extern int cdb_read(struct cdb *, char *, unsigned int, uint32);
extern void cdb_init(struct cdb *, int);
extern int stralloc_copys(stralloc *, const char *);
extern int stralloc_cats(stralloc *, const char *);
extern int stralloc_cat(stralloc *, stralloc *);
extern int stralloc_ready(stralloc *, unsigned int);
#define stralloc_0(sa) stralloc_append(sa, "")
extern int stralloc_append(stralloc *, const char *);
extern unsigned int byte_chr(char *, unsigned int, int);
extern unsigned int byte_rchr(char *, unsigned int, int);
extern unsigned int str_len(const char *);
extern int open_read(const char *);
extern int close(int);
extern void strerr_warn4(const char *, const char *, const char *, const char *, void *);
extern int ipsvd_instruct(stralloc *, stralloc *, char *);
extern const char *progname;
static stralloc forwardfn ={0};
static stralloc moredata ={0};
static char *forward =0;
static struct cdb c;
static int fd;
static uint32 dlen;
//@extract ipsvd/ipsvd-1.0.0/src/cdb_hash.c cdb_hashadd cdb_hash
//@extract ipsvd/ipsvd-1.0.0/src/ipsvd_check.c ipsvd_check_cdbentry ipsvd_check_cdb
