/* Fresh6 held-out set: djbdns 1.05's client checks (extracted at bench
 * time from $NFC_CORPUS_DIR, verbatim): tinydns's respond (tdlookup.c:
 * the client's location is the data of the longest of the keys "%" +
 * first 4, 3, 2, 1, 0 bytes of its address found in the cdb, tried from
 * the longest, unrolled), dnscache's okclient (okclient.c: an ip/ file
 * named by the dotted address or any shorter dotted prefix allows the
 * client), the cdb hash (cdb_hash.c) and the cdb's exact key search
 * (cdb.c: cdb_findnext probes the hash slots of the key's table, match
 * compares the stored key). The cdb reads, time and file calls stay
 * external. */
#include <stdint.h>
struct stat { long st_size; };
int stat(const char *, struct stat *);
typedef uint32_t uint32;
#define CDB_HASHSTART 5381
#define IP4_FMT 20
struct cdb { char *map; int fd; uint32 size; uint32 loop; uint32 khash; uint32 kpos; uint32 hpos; uint32 hslots; uint32 dpos; uint32 dlen; };
struct tai { uint64_t x; };
#define cdb_datalen(c) ((c)->dlen)
#define cdb_datapos(c) ((c)->dpos)
extern struct tai now;
extern struct cdb c;
extern char clientloc[2];
void tai_now(struct tai *);
int open_read(const char *);
void cdb_init(struct cdb *, int);
void cdb_free(struct cdb *);
int cdb_find(struct cdb *, const char *, unsigned int);
uint32 cdb_hash(const char *, unsigned int);
int cdb_read(struct cdb *, char *, unsigned int, uint32);
int close(int);
void byte_zero(char *, unsigned int);
void byte_copy(char *, unsigned int, const char *);
int doit(char *, char *);
unsigned int ip4_fmt(char *, const char *);
unsigned int str_rchr(const char *, int);
int byte_diff(const char *, unsigned int, const char *);
void uint32_unpack(const char *, uint32 *);
static char fn[3 + IP4_FMT];
//@extract djbdns/tdlookup.c respond
//@extract djbdns/okclient.c okclient
//@extract djbdns/cdb_hash.c cdb_hashadd cdb_hash
//@extract djbdns/cdb.c match cdb_findnext
