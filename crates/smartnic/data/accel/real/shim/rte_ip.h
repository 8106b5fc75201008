/* Minimal DPDK shims so single DPDK headers compile freestanding for the
 * proxy target (accelerator corpus, real implementations). */
#pragma once
#include <stdint.h>
#include <stddef.h>
struct rte_ipv4_hdr { uint8_t version_ihl, type_of_service; uint16_t total_length, packet_id, fragment_offset; uint8_t time_to_live, next_proto_id; uint16_t hdr_checksum; uint32_t src_addr, dst_addr; };
struct rte_ipv6_hdr { uint32_t vtc_flow; uint16_t payload_len; uint8_t proto, hop_limits; uint8_t src_addr[16], dst_addr[16]; };
