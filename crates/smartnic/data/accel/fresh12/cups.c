/* Fresh12 held-out set: CUPS 2.4.2's scheduler/auth.c cupsdFindBest (the
 * Location section governing a request: over the configured locations,
 * the longest location string that prefixes the request URI — case-
 * insensitively for queues — kept best-so-far by its length: a longest
 * prefix match over paths). CUPS 2.4.2 (bookworm), not 2.4.20: the
 * mirror did not serve 2.4.20's files. Verbatim (extracted at bench time
 * from $NFC_CORPUS_DIR); the limit constants are auth.h's, the location
 * type a stand-in with auth.h's fields the function reads, the array and
 * logging calls, strlcpy and _cups_strncasecmp are declared here. The
 * return type sits on the line above the name behind a comment, which
 * the extractor does not take: the function is compiled with C's old
 * implicit int (its pointer result converted), hence the two pragmas. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#define HTTP_MAX_URI 1024
#define CUPSD_LOG_DEBUG2 9
#define CUPSD_AUTH_LIMIT_DELETE	1
#define CUPSD_AUTH_LIMIT_GET	2
#define CUPSD_AUTH_LIMIT_HEAD	4
#define CUPSD_AUTH_LIMIT_OPTIONS 8
#define CUPSD_AUTH_LIMIT_POST	16
#define CUPSD_AUTH_LIMIT_PUT	32
#define CUPSD_AUTH_LIMIT_TRACE	64
#define CUPSD_AUTH_LIMIT_ALL	127
typedef int http_state_t;
typedef struct cups_array_s cups_array_t;
void *cupsArrayFirst(cups_array_t *);
void *cupsArrayNext(cups_array_t *);
extern cups_array_t *Locations;
int cupsdLogMessage(int level, const char *message, ...);
size_t strlcpy(char *, const char *, size_t);
int _cups_strncasecmp(const char *, const char *, size_t);
typedef struct
{
  char *location;
  size_t length;
  int limit;
} cupsd_location_t;
#pragma clang diagnostic ignored "-Wimplicit-int"
#pragma clang diagnostic ignored "-Wint-conversion"
//@extract cups/scheduler/auth.c cupsdFindBest
