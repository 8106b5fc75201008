/* Fresh4 held-out set: GeoIP 1.6.12's legacy database tree walks
 * (libGeoIP/GeoIP.c: _GeoIP_seek_record_gl and _GeoIP_seek_record_v6_gl,
 * one address bit per level from the most significant, records read from
 * the file or the memory cache, until a record points past the tree: the
 * longest stored prefix, whose length is returned as the netmask) and
 * GeoIP_addr_to_num (dotted-quad parser), verbatim (extracted at bench
 * time from $NFC_CORPUS_DIR, with the public header GeoIP.h included
 * whole). GeoIP.c's static helpers stay external; DEBUG_MSGF and
 * ADDR_STR_LEN are its definitions. */
#include <stdint.h>
#include <stddef.h>
//@include geoip/libGeoIP/GeoIP.h
long pread(int fd, void *buf, size_t count, long offset);
int fileno(FILE *stream);
void _check_mtime(GeoIP *gi);
void __GEOIP_PREPARE_TEREDO(geoipv6_t *v6);
#define ADDR_STR_LEN (8 * 4 + 7 + 1)
const char *_GeoIP_inet_ntop(int af, const void *src, char *dst, socklen_t cnt);
#define DEBUG_MSGF(flags, fmt, ...)                                            \
    {                                                                          \
        if (((flags)&GEOIP_SILENCE) == 0) {                                    \
            fprintf(stderr, fmt, ##__VA_ARGS__);                               \
        }                                                                      \
    }
//@extract geoip/libGeoIP/GeoIP.c _GeoIP_seek_record_v6_gl _GeoIP_seek_record_gl GeoIP_addr_to_num
