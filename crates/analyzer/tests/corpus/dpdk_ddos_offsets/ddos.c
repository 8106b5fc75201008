/*
 * Volumetric DDoS detector: a count-min sketch of packets per IPv4 source,
 * parsed by raw byte offsets (untagged Ethernet + IPv4 assumed, as in the
 * original firmware port). Sources above the threshold are dropped.
 */
#include <stdint.h>
#include <rte_mbuf.h>
#include <rte_byteorder.h>

#define ETH_TYPE_OFF 12
#define IP_SRC_OFF 26
#define CMS_ROWS 4
#define CMS_COLS 16384

static uint32_t cms[CMS_ROWS][CMS_COLS];
static const uint32_t seeds[CMS_ROWS] = { 0x9747b28c, 0x85ebca6b, 0xc2b2ae35, 0x27d4eb2f };
static uint32_t threshold = 50000;

static inline uint32_t
mix32(uint32_t x, uint32_t seed)
{
	x ^= seed;
	x ^= x >> 16;
	x *= 0x85ebca6b;
	x ^= x >> 13;
	x *= 0xc2b2ae35;
	x ^= x >> 16;
	return x;
}

int
ddos_check(struct rte_mbuf *m)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t est = UINT32_MAX;
	uint32_t src;

	if (*(const uint16_t *)(d + ETH_TYPE_OFF) != rte_cpu_to_be_16(0x0800))
		return 0;
	src = rte_be_to_cpu_32(*(const uint32_t *)(d + IP_SRC_OFF));
	for (int r = 0; r < CMS_ROWS; r++) {
		uint32_t *cell = &cms[r][mix32(src, seeds[r]) % CMS_COLS];
		*cell += 1;
		if (*cell < est)
			est = *cell;
	}
	return est > threshold ? -1 : 0;
}
