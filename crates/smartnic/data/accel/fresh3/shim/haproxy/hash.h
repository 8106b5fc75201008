/* Shim for fresh3/haproxy_hash.c: what HAProxy's hash.c needs from its header. */
#include <stdint.h>
