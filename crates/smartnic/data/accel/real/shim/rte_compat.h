/* Minimal DPDK shims so single DPDK headers compile freestanding for the
 * proxy target (accelerator corpus, real implementations). */
#pragma once
#include <stdint.h>
#include <stddef.h>
#define __rte_experimental
#define __rte_internal
