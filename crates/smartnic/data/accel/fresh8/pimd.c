/* Fresh8 held-out set: pimd 2.3.2: the Internet checksum inet_cksum
 * (inet.c, BSD's in_cksum), and the RP-set lookups of rp.c: rp_grp_match
 * (every group prefix whose mask matches the group is scanned, and the
 * candidate RP with the best priority, then hash value, then address is
 * kept, whatever the prefix length — RFC 4601's hash selection, not a
 * longest match) and rp_find (a sorted list searched for an exact
 * address), with rp_match's wrapper, verbatim (extracted at bench time
 * from $NFC_CORPUS_DIR). The structs are mrt.h's (vifi_t as its
 * uint16_t), RP_HASH_VALUE and its seeds rp.c's. */
#include <stdint.h>
#include <netinet/in.h>
typedef unsigned int u_int;
#define SEED1 1103515245
#define SEED2 12345
#define RP_HASH_VALUE(G, M, C) (((SEED1) * (((SEED1) * ((G) & (M)) + (SEED2)) ^ (C)) + (SEED2)) % 0x80000000)
typedef struct srcentry {
    struct srcentry	 *next;
    struct srcentry	 *prev;
    uint32_t		  address;
    struct mrtentry	 *mrtlink;
    uint16_t		  incoming;
    struct pim_nbr_entry *upstream;
    uint32_t		  metric;
    uint32_t		  preference;
    uint16_t		  timer;
    struct cand_rp	 *cand_rp;
} srcentry_t;
typedef srcentry_t rpentry_t;
struct rp_grp_entry;
typedef struct cand_rp {
    struct cand_rp	*next;
    struct cand_rp	*prev;
    struct rp_grp_entry *rp_grp_next;
    rpentry_t		*rpentry;
} cand_rp_t;
typedef struct grp_mask {
    struct grp_mask	*next;
    struct grp_mask	*prev;
    struct rp_grp_entry *grp_rp_next;
    uint32_t		 group_addr;
    uint32_t		 group_mask;
    uint32_t		 hash_mask;
    uint16_t		 fragment_tag;
    uint8_t		 group_rp_number;
} grp_mask_t;
typedef struct rp_grp_entry {
    struct rp_grp_entry *rp_grp_next;
    struct rp_grp_entry *rp_grp_prev;
    struct rp_grp_entry *grp_rp_next;
    struct rp_grp_entry *grp_rp_prev;
    struct grpentry	*grplink;
    uint16_t		 holdtime;
    uint16_t		 fragment_tag;
    uint8_t		 priority;
    grp_mask_t		*group;
    cand_rp_t		*rp;
} rp_grp_entry_t;
cand_rp_t *cand_rp_list;
grp_mask_t *grp_mask_list;
//@extract pimd/inet.c inet_cksum
rp_grp_entry_t *rp_grp_match(uint32_t group);
//@extract pimd/rp.c rp_match rp_grp_match rp_find
