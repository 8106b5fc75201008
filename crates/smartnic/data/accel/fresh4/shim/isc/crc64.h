/* Shim for fresh4/bind9_hash.c: nothing from BIND's isc/crc64.h the included files use beyond isc/util.h. */
