/* Shim for fresh3/tcpdump_cksum.c: tcpdump's portable types. */
#ifndef FRESH3_NETDISSECT_STDINC_H
#define FRESH3_NETDISSECT_STDINC_H
#include <stdint.h>
#include <stddef.h>
typedef unsigned char u_char;
typedef unsigned short u_short;
typedef unsigned int u_int;
#include <netinet/in.h>
#endif
