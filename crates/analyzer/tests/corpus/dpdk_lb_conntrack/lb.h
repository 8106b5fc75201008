#ifndef LB_H
#define LB_H
#include <stdint.h>
#define LB_MAX_BACKENDS 64
#define LB_DROP 0xffff
#define LB_FORWARD 1
struct lb_backend { uint32_t addr; uint8_t mac[6]; };
struct lb_conf {
	struct lb_backend backends[LB_MAX_BACKENDS];
	uint32_t n_backends;
};
extern struct lb_conf lb_conf;
int lb_init(unsigned capacity);
uint16_t lb_handle(struct rte_mbuf *m);
#endif
