/* Shim for the fresh held-out set: DPDK's branch hints, plain here. */
#pragma once
#define likely(x) (x)
#define unlikely(x) (x)
