#pragma once
/* Shim for FRR's lib/checksum.h (fresh2 held-out set). */
#include <stdint.h>
#define FLETCHER_CHECKSUM_VALIDATE 0xffff
