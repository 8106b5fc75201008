/* Fresh10: the few kernel types and macros the extracted Linux 6.1.4
 * functions use, written here from include/linux/types.h, compiler.h,
 * rcupdate.h, bitops.h, list.h and byteorder (little-endian target, no
 * RCU: a reader's dereference is a plain load). Macros only, so the shim
 * adds no function of its own to a unit. */
#ifndef FRESH10_KSHIM_H
#define FRESH10_KSHIM_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef uint8_t __u8;
typedef uint16_t __u16;
typedef uint32_t __u32;
typedef uint64_t __u64;
typedef uint16_t __be16;
typedef uint32_t __be32;
typedef uint64_t __be64;
typedef uint32_t __wsum;
typedef uint16_t __sum16;
typedef _Bool bool;
#define true 1
#define false 0
#define __rcu
#define __pure
#define __force
#define __aligned(x) __attribute__((aligned(x)))
#define EXPORT_SYMBOL(x)
#define EXPORT_SYMBOL_GPL(x)
#define BUILD_BUG_ON(c) ((void)sizeof(char[1 - 2 * !!(c)]))
#define BIT(n) (1UL << (n))
#define min(a, b) ((a) < (b) ? (a) : (b))
#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))
#define rcu_dereference_check(p, c) (p)
#define rcu_dereference_bh(p) (p)
#define rcu_access_pointer(p) (p)
#define rcu_read_lock_bh_held() 1
#define be16_to_cpu(x) __builtin_bswap16(x)
#define be32_to_cpu(x) __builtin_bswap32(x)
#define be64_to_cpu(x) __builtin_bswap64(x)
#define fls(x) ((x) ? 32 - __builtin_clz(x) : 0)
#define fls64(x) ((x) ? 64 - __builtin_clzll(x) : 0)
struct rcu_head { struct rcu_head *next; void (*func)(struct rcu_head *); };
struct hlist_node { struct hlist_node *next, **pprev; };
struct hlist_head { struct hlist_node *first; };
#define hlist_entry_safe(ptr, type, member) \
	((ptr) ? container_of(ptr, type, member) : NULL)
#define hlist_for_each_entry_rcu(pos, head, member) \
	for (pos = hlist_entry_safe((head)->first, __typeof__(*(pos)), member); pos; \
	     pos = hlist_entry_safe((pos)->member.next, __typeof__(*(pos)), member))
#endif
