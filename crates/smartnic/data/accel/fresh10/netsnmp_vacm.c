/* Fresh10 held-out set: Net-SNMP 5.9.5.2's snmplib/vacm.c netsnmp_view_get
 * (the VACM view lookup: every view family of the view whose subtree,
 * under its bit mask, is a prefix of the OID is a match; the longest one
 * is kept — a best-so-far over masked OID prefixes in a linear scan: lpm)
 * and vacm_getGroupEntry (the first group entry whose security model and
 * name match: an exact/first-match scan, none), with snmp_api.c's
 * snmp_oid_compare (lexicographic OID compare: none) and
 * netsnmp_oid_find_prefix (the length of two OIDs' common prefix: none).
 * Verbatim (extracted at bench time from $NFC_CORPUS_DIR); the structs,
 * limits and VIEW_MASK are vacm.h's and vacm.c's, the tracing macro
 * (DEBUGMSGTL) empty as in a build without debugging. */
#include <stddef.h>
#include <string.h>
typedef unsigned long oid;
typedef unsigned char u_char;
typedef unsigned long u_long;
#define MAX_OID_LEN	    128
#define VACM_MAX_STRING 32
#define VACMSTRINGLEN   34
#define VACM_MODE_FIND                0
#define VACM_MODE_IGNORE_MASK         1
#define VACM_MODE_CHECK_SUBTREE       2
#define SNMP_SEC_MODEL_ANY 0
#define SNMP_MIN(a,b) ((a) > (b) ? (b) : (a))
#define DEBUGMSGTL(x)
#define VIEW_MASK(viewPtr, idx, mask) \
    ((idx >= viewPtr->viewMaskLen) ? mask : (viewPtr->viewMask[idx] & mask))
extern size_t strlcpy(char *, const char *, size_t);
struct vacm_viewEntry {
    char            viewName[VACMSTRINGLEN];
    oid             viewSubtree[MAX_OID_LEN+1]; /* keep len in [0] */
    size_t          viewSubtreeLen;
    u_char          viewMask[VACMSTRINGLEN];
    size_t          viewMaskLen;
    int             viewType;
    int             viewStorageType;
    int             viewStatus;
    u_long          bitMask;
    struct vacm_viewEntry *reserved;
    struct vacm_viewEntry *next;
};
struct vacm_groupEntry {
    int             securityModel;
    char            securityName[VACMSTRINGLEN];
    char            groupName[VACMSTRINGLEN];
    int             storageType;
    int             status;
    u_long          bitMask;
    struct vacm_groupEntry *reserved;
    struct vacm_groupEntry *next;
};
static struct vacm_groupEntry *groupList;
//@extract net-snmp/snmplib/snmp_api.c snmp_oid_compare netsnmp_oid_find_prefix
//@extract net-snmp/snmplib/vacm.c netsnmp_view_get vacm_getGroupEntry
