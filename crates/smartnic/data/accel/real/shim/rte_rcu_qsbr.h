/* Minimal DPDK shims so single DPDK headers compile freestanding for the
 * proxy target (accelerator corpus, real implementations). */
#pragma once
#include <stdint.h>
#include <stddef.h>
/* Opaque: the lookup functions never touch the RCU state. */
struct rte_rcu_qsbr;
