/*
 * Per-station airtime meter for an embedded bridge: counts bytes per source
 * MAC address. Stations live in a fixed pool linked into hash chains by
 * 16-bit indices (no heap, no pointers), so the table can be snapshotted.
 */
#include <stdint.h>
#include <string.h>

#define NIL 0xffff
#define N_STATIONS 1024
#define N_CHAINS 256

struct station {
	uint8_t mac[6];
	uint16_t next;
	uint32_t bytes;
	uint32_t frames;
};

static struct {
	uint16_t chain[N_CHAINS];
	uint16_t used;
	struct station pool[N_STATIONS];
} meter;

void
meter_init(void)
{
	for (int i = 0; i < N_CHAINS; i++)
		meter.chain[i] = NIL;
	meter.used = 0;
}

static uint8_t
mac_hash(const uint8_t *m)
{
	return m[0] ^ m[1] ^ m[2] ^ m[3] ^ m[4] ^ m[5];
}

void
meter_frame(const uint8_t *frame, uint16_t len)
{
	const uint8_t *src = frame + 6;
	uint8_t h = mac_hash(src);
	uint16_t i = meter.chain[h];

	while (i != NIL) {
		struct station *s = &meter.pool[i];
		if (memcmp(s->mac, src, 6) == 0) {
			s->bytes += len;
			s->frames++;
			return;
		}
		i = s->next;
	}
	if (meter.used == N_STATIONS)
		return;
	i = meter.used++;
	memcpy(meter.pool[i].mac, src, 6);
	meter.pool[i].bytes = len;
	meter.pool[i].frames = 1;
	meter.pool[i].next = meter.chain[h];
	meter.chain[h] = i;
}
