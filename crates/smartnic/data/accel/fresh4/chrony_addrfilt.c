/* Fresh4 held-out set: chrony 4.3's address filter (addrfilt.c): a 16-way
 * (4 bits a level) trie of allow/deny states walked by the address,
 * remembering the last explicit state: the most specific matching
 * subnet's rule (check_ip_in_node), with its nibble extractor get_subnet
 * and the IPv6 splitter, verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR). Types are addrfilt.c's and addressing.h's. */
#include <stdint.h>
#include <stddef.h>
#include <assert.h>
#define NBITS 4
#define TABLE_SIZE (1UL<<NBITS)
#define IPADDR_UNSPEC 0
#define IPADDR_INET4 1
#define IPADDR_INET6 2
typedef struct {
  union {
    uint32_t in4;
    uint8_t in6[16];
    uint32_t id;
  } addr;
  uint16_t family;
  uint16_t _pad;
} IPAddr;
typedef enum {DENY, ALLOW, AS_PARENT} State;
typedef struct _TableNode {
  State state;
  struct _TableNode *extended;
} TableNode;
//@extract chrony/addrfilt.c split_ip6 get_subnet check_ip_in_node
int wrap_check(TableNode *n, uint32_t *ip) { return check_ip_in_node(n, ip); }
void wrap_split(IPAddr *ip, uint32_t *dst) { split_ip6(ip, dst); }
