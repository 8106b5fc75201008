/* Fresh10 held-out set: Net-SNMP 5.9.5.2's
 * snmplib/transports/snmpUDPDomain.c netsnmp_udp_getSecName: the com2sec
 * entries are kept in configuration order (netsnmp_udp_com2SecEntry_create
 * appends at the tail) and the FIRST whose community matches and whose
 * network equals the source address under its mask decides (a negative
 * entry ends the search with no name): a first-match masked list scan,
 * none, hard case. Verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR); the entry struct is snmpUDPDomain.c's, the address
 * pair reduced to what it reads, the tracing macros empty as in a build
 * without debugging. */
#include <stddef.h>
#include <string.h>
#include <stdlib.h>
#define AF_INET 2
#define INET_ADDRSTRLEN 16
#define DEBUGMSGTL(x)
#define DEBUGMSG(x)
#define DEBUGIF(x) if (0)
typedef unsigned int in_addr_t;
struct in_addr { in_addr_t s_addr; };
struct sockaddr_in { unsigned short sin_family; unsigned short sin_port; struct in_addr sin_addr; char sin_zero[8]; };
typedef struct { struct sockaddr_in remote_addr; struct sockaddr_in local_addr; int if_index; } netsnmp_udp_addr_pair;
typedef struct com2SecEntry_s com2SecEntry;
struct com2SecEntry_s {
    const char *secName;
    const char *contextName;
    struct com2SecEntry_s *next;
    in_addr_t   network;
    in_addr_t   mask;
    int         negate;
    const char  community[1];
};
static com2SecEntry   *com2SecList = NULL;
extern const char *inet_ntop(int, const void *, char *, unsigned int);
//@extract net-snmp/snmplib/transports/snmpUDPDomain.c netsnmp_udp_getSecName
