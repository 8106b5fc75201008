/* Fresh6 held-out set: Wireshark 4.0.17's subnet name lookup
 * (epan/addr_resolv.c: subnet_lookup, one hash table of subnets per mask
 * length, tried from the longest), verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR). Types are addr_resolv.c's reduced to the fields used;
 * the tables are external. */
#include <stdint.h>
#include <stddef.h>
typedef uint8_t guint8;
typedef uint32_t guint32;
typedef unsigned int guint;
typedef char gchar;
typedef int gboolean;
typedef size_t gsize;
#define MAXNAMELEN 64
#define SUBNETLENGTHSIZE 32
#define HASHHOSTSIZE 2048
#define HASH_IPV4_ADDRESS(addr) (g_htonl(addr) & (HASHHOSTSIZE - 1))
#define g_htonl(x) __builtin_bswap32(x)
#define ws_assert(e) ((void)0)
typedef struct sub_net_hashipv4 {
    guint addr;
    guint8 flags;
    struct sub_net_hashipv4 *next;
    gchar name[MAXNAMELEN];
} sub_net_hashipv4_t;
typedef struct {
    gsize mask_length;
    guint32 mask;
    sub_net_hashipv4_t** subnet_addresses;
} subnet_length_entry_t;
typedef struct {
    guint32 mask;
    gsize mask_length;
    const gchar* name;
} subnet_entry_t;
extern subnet_length_entry_t subnet_length_entries[SUBNETLENGTHSIZE];
extern gboolean have_subnet_entry;
//@extract wireshark/epan/addr_resolv.c subnet_lookup
subnet_entry_t wrap_subnet_lookup(const guint32 a) { return subnet_lookup(a); }
