/* Fresh4 held-out set: two Internet checksums, verbatim (extracted at
 * bench time from $NFC_CORPUS_DIR): fping 5.1's calcsum (src/socket4.c)
 * and traceroute 2.1.2's in_csum (traceroute/csum.c). */
#include <stdint.h>
#include <stddef.h>
#include <netinet/in.h>
//@extract fping/src/socket4.c calcsum
//@extract traceroute/traceroute/csum.c in_csum
