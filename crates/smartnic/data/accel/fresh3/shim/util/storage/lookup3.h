/* Shim for fresh3/unbound_lookup3.c: lookup3.c defines everything it uses. */
#include <stdint.h>
#include <stddef.h>
