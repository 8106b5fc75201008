/* Fresh10 held-out set: OpenDKIM 2.11.0~beta2's opendkim/util.c peer and
 * internal-host checks: dkimf_checkhost looks the host name up in a table,
 * then each parent domain (the name cut at its next '.'), longest first,
 * a "!name" entry before "name", and returns the verdict of the first hit
 * (the longest matching suffix over labels: the shorten-and-retry class,
 * lpm); dkimf_checkip looks the address up as-is, then for IPv6 and IPv4
 * with prefix lengths from the longest down (the address masked one bit
 * shorter each round, "addr/len" formatted and looked up through the
 * external table), first hit's verdict (lpm); plus dkimf_lowercase and
 * dkimf_inet_ntoa (none), and libopendkim's base32 encoder and base64
 * decoder (none). Verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR); the declarations are opendkim's headers' (opendkim-db.h,
 * build-config.h) and POSIX's, reduced to what the functions use. */
#include <stddef.h>
#include <string.h>
#include <stdio.h>
#include <stdint.h>
#include <assert.h>
#define TRUE 1
#define FALSE 0
#define BUFRSZ 1024
#define DKIM_MAXHOSTNAMELEN 256
#define AF_INET 2
#define AF_INET6 10
typedef unsigned char u_char;
typedef uint32_t in_addr_t;
typedef unsigned short sa_family_t;
struct in_addr { in_addr_t s_addr; };
struct in6_addr { unsigned char s6_addr[16]; };
struct sockaddr { sa_family_t sa_family; char sa_data[14]; };
struct sockaddr_in { sa_family_t sin_family; unsigned short sin_port; struct in_addr sin_addr; char sin_zero[8]; };
struct sockaddr_in6 { sa_family_t sin6_family; unsigned short sin6_port; uint32_t sin6_flowinfo; struct in6_addr sin6_addr; uint32_t sin6_scope_id; };
typedef struct dkimf_db *DKIMF_DB;
extern int dkimf_db_get(DKIMF_DB db, void *buf, size_t buflen, void *req, unsigned int reqnum, _Bool *exists);
extern const char *inet_ntop(int, const void *, char *, unsigned int);
extern size_t strlcat(char *, const char *, size_t);
extern int isascii(int);
extern int isupper(int);
extern int tolower(int);
size_t dkimf_inet_ntoa(struct in_addr a, char *buf, size_t buflen);
#define htonl(x) __builtin_bswap32(x)
#define ntohl(x) __builtin_bswap32(x)
//@extract opendkim/opendkim/util.c dkimf_lowercase dkimf_checkhost dkimf_checkip dkimf_inet_ntoa
