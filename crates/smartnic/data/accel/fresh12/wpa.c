/* Fresh12 held-out set: wpa_supplicant/hostapd 2.10: src/utils/crc32.c
 * crc32 (the IEEE 802.11 CRC-32: reflected byte-table step, preset and
 * inverted) and src/ap/ap_config.c hostapd_maclist_found (a binary
 * search of a sorted MAC access list for an exact address, the VLAN of
 * the hit handed out). Verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR), the constant table with them; the types, ETH_ALEN,
 * os_memcmp and the two structs (vlan.h's and ap_config.h's
 * declarations, MAX_NUM_TAGGED_VLAN as configured by default) are
 * written here. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
typedef uint8_t u8;
typedef uint32_t u32;
#define ETH_ALEN 6
#define MAX_NUM_TAGGED_VLAN 32
#define os_memcmp(s1, s2, n) memcmp((s1), (s2), (n))
struct vlan_description {
	int notempty;
	int untagged;
	int tagged[MAX_NUM_TAGGED_VLAN];
};
typedef u8 macaddr[ETH_ALEN];
struct mac_acl_entry {
	macaddr addr;
	struct vlan_description vlan_id;
};
//@extract wpa/src/utils/crc32.c crc32_table crc32
//@extract wpa/src/ap/ap_config.c hostapd_maclist_found
