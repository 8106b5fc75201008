/* Minimal DPDK shims so single DPDK headers compile freestanding for the
 * proxy target (accelerator corpus, real implementations). */
#pragma once
#define EINVAL 22
#define ENOENT 2
