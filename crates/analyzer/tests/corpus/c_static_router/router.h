#ifndef ROUTER_H
#define ROUTER_H
#define MAX_ROUTES 256
int router_add_route(uint32_t prefix, uint8_t plen, uint8_t port, const uint8_t mac[6]);
int route_packet(uint8_t *pkt, uint32_t len);
#endif
