#pragma once
/* Shim for FRR's lib/jhash.h (fresh2 held-out set). */
#include <stdint.h>
