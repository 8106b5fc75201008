/*
 * First-contact detector: remembers which (source, destination) address
 * pairs have talked, in a Bloom filter, and mirrors packets of never-seen
 * pairs to a monitor port. Every packet sets its pair's bits.
 */
#include <stdint.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <arpa/inet.h>

#define BLOOM_BITS (1u << 22)
#define BLOOM_WORDS (BLOOM_BITS / 64)

static uint64_t bloom[BLOOM_WORDS];
static uint64_t first_contacts;

static inline uint32_t
h1(uint32_t a, uint32_t b)
{
	uint32_t x = a * 0x9e3779b1u + b;
	return (x ^ (x >> 15)) & (BLOOM_BITS - 1);
}

static inline uint32_t
h2(uint32_t a, uint32_t b)
{
	uint32_t x = (a ^ 0x85ebca6bu) * 31u + (b << 7);
	return (x ^ (x >> 13)) & (BLOOM_BITS - 1);
}

int
first_contact(const unsigned char *frame, unsigned len)
{
	const struct ethhdr *eth = (const struct ethhdr *)frame;
	const struct iphdr *ip;
	uint32_t a, b, i1, i2;
	int seen;

	if (len < sizeof(*eth) + sizeof(*ip) || eth->h_proto != htons(ETH_P_IP))
		return 0;
	ip = (const struct iphdr *)(frame + sizeof(*eth));
	a = ntohl(ip->saddr);
	b = ntohl(ip->daddr);
	i1 = h1(a, b);
	i2 = h2(a, b);
	seen = (bloom[i1 / 64] >> (i1 % 64) & 1) && (bloom[i2 / 64] >> (i2 % 64) & 1);
	bloom[i1 / 64] |= 1ull << (i1 % 64);
	bloom[i2 / 64] |= 1ull << (i2 % 64);
	if (!seen)
		first_contacts++;
	return seen ? 0 : 1;
}
