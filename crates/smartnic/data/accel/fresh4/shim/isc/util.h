/* Shim for fresh4/bind9_hash.c: the macros of BIND 9.18's isc/util.h and
 * isc/assertions.h the included files use (assertions compiled out, as
 * they would be checked at run time only). */
#ifndef FRESH4_ISC_UTIL_H
#define FRESH4_ISC_UTIL_H
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#define REQUIRE(x) ((void)(x))
#define INSIST(x) ((void)(x))
#define ENSURE(x) ((void)(x))
#define RUNTIME_CHECK(x) ((void)(x))
#define FALLTHROUGH __attribute__((fallthrough))
#define UNREACHABLE() __builtin_unreachable()
#define ISC_MIN(a, b) ((a) < (b) ? (a) : (b))
#endif
