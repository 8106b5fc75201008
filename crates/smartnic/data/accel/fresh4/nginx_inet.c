/* Fresh4 held-out set: nginx 1.22.1's dotted-quad parser and its CIDR
 * access test (src/core/ngx_inet.c: ngx_inet_addr; ngx_cidr_match, which
 * answers whether ANY configured block covers the address, in list order,
 * with no notion of the longest), verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR). Types are ngx_inet.h's and ngx_array.h's reduced to
 * the fields used; socket types from the shim; IPv6 on, as Debian builds
 * it. */
#include <stdint.h>
#include <stddef.h>
#include <netinet/in.h>
typedef unsigned char u_char;
typedef uintptr_t ngx_uint_t;
typedef intptr_t ngx_int_t;
#define NGX_OK 0
#define NGX_DECLINED -5
#define NGX_HAVE_INET6 1
#define NGX_HAVE_UNIX_DOMAIN 1
typedef struct { void *elts; ngx_uint_t nelts; size_t size; ngx_uint_t nalloc; void *pool; } ngx_array_t;
typedef struct { in_addr_t addr; in_addr_t mask; } ngx_in_cidr_t;
typedef struct { struct in6_addr addr; struct in6_addr mask; } ngx_in6_cidr_t;
typedef struct {
    ngx_uint_t family;
    union {
        ngx_in_cidr_t in;
        ngx_in6_cidr_t in6;
    } u;
} ngx_cidr_t;
//@extract nginx/src/core/ngx_inet.c ngx_inet_addr ngx_cidr_match
