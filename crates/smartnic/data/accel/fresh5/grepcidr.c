/* Fresh5 held-out set: grepcidr 2.0 (grepcidr.c), verbatim (extracted at
 * bench time from $NFC_CORPUS_DIR): net_parse (a CIDR, range or address
 * pattern parsed with sscanf into a [min, max] range, host bits masked),
 * ipv6_increment (a 128-bit increment with carry), netsearch and
 * netsearch6 (bsearch comparators: is the key inside the range) and
 * match_ip (any pattern range holding the address, by bsearch: a
 * membership test over merged ranges, not a longest match). Globals,
 * struct netspec/netspec6 and the macros are grepcidr.c's; print_or_count
 * stays external. */
#include <stddef.h>
#include <string.h>
#include <stdlib.h>
struct netspec
{
	unsigned int min;
	unsigned int max;
};
struct netspec6
{
	unsigned char min[16];
	unsigned char max[16];
};
#define VALID_IP(IP) ((IP[0]<256) && (IP[1]<256) && (IP[2]<256) && (IP[3]<256))
#define BUILD_IP(IP) ((IP[0]<<24) | (IP[1]<<16) | (IP[2]<<8) | IP[3])
int invert = 0;
int strict_align = 0;
int match_one = 0;
int seen_ip = 0;
unsigned int patterns = 0;
struct netspec* array = NULL;
unsigned int patterns6 = 0;
struct netspec6* array6 = NULL;
char *strchr(const char *s, int c);
int sscanf(const char *s, const char *fmt, ...);
void *bsearch(const void *key, const void *base, size_t n, size_t size,
	      int (*cmp)(const void *, const void *));
void print_or_count(char* line, const char* filename);
//@extract grepcidr/grepcidr.c ipv6_increment net_parse netsearch netsearch6 match_ip
