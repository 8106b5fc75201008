/* Shim for fresh4/bind9_hash.c: nothing from BIND's isc/types.h the included files use beyond isc/util.h. */
