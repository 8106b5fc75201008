/* Fresh7 held-out set: libloc 0.9.19's network lookup (src/database.c:
 * __loc_database_lookup descends the database's binary network tree one
 * address bit a level, recursively, and on the way back up takes the
 * deepest node holding a network that contains the address: the most
 * specific; the leaf test, the leaf handler and the object accessor with
 * its bounds check), verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR). The logging macros are private.h's (the non-debug
 * DEBUG, the conditional ERROR), the address bit helpers address.h's;
 * the network fetch, containment test and release stay external. */
#include <stdint.h>
#include <stdio.h>
#include <errno.h>
#include <time.h>
#include <sys/types.h>
#include <endian.h>
#include <netinet/in.h>
#define LOG_ERR 3
struct loc_ctx;
struct loc_network;
struct loc_stringpool;
enum loc_database_version { LOC_DATABASE_VERSION_UNSET = 0, LOC_DATABASE_VERSION_1 = 1 };
int loc_get_log_priority(struct loc_ctx *ctx);
void loc_log(struct loc_ctx *ctx, int priority, const char *file, int line, const char *fn, const char *format, ...);
static inline void __attribute__((always_inline, format(printf, 2, 3)))
loc_log_null(struct loc_ctx *ctx, const char *format, ...) {}
#define loc_log_cond(ctx, prio, arg...) \
	do { \
		if (loc_get_log_priority(ctx) >= prio) \
			loc_log(ctx, prio, __FILE__, __LINE__, __FUNCTION__, ## arg); \
	} while (0)
#define DEBUG(ctx, arg...) loc_log_null(ctx, ## arg)
#define ERROR(ctx, arg...) loc_log_cond(ctx, LOG_ERR, ## arg)
struct loc_database_network_node_v1 {
	uint32_t zero;
	uint32_t one;
	uint32_t network;
};
struct loc_database_objects {
	char* data;
	size_t length;
	size_t count;
};
struct loc_database_signature {
	const char* data;
	size_t length;
};
struct loc_database {
	struct loc_ctx* ctx;
	int refcount;
	FILE* f;
	enum loc_database_version version;
	time_t created_at;
	off_t vendor;
	off_t description;
	off_t license;
	struct loc_database_signature signature1;
	struct loc_database_signature signature2;
	char* data;
	ssize_t length;
	struct loc_stringpool* pool;
	struct loc_database_objects as_objects;
	struct loc_database_objects network_node_objects;
	struct loc_database_objects network_objects;
	struct loc_database_objects country_objects;
};
int loc_database_fetch_network(struct loc_database* db, struct loc_network** network,
		struct in6_addr* address, unsigned int prefix, off_t pos);
int loc_network_matches_address(struct loc_network* network, const struct in6_addr* address);
struct loc_network* loc_network_unref(struct loc_network* network);
//@extract libloc/src/libloc/address.h loc_address_get_bit loc_address_set_bit
//@extract libloc/src/database.c __loc_database_check_boundaries loc_database_object __loc_database_node_is_leaf __loc_database_lookup_handle_leaf __loc_database_lookup
int wrap_loc_lookup(struct loc_database* db, const struct in6_addr* address, struct loc_network** network, struct in6_addr* network_address) { return __loc_database_lookup(db, address, network, network_address, 0, 0); }
