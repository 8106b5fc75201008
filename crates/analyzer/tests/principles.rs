//! One check per principle of the static analysis, each on a few lines of C
//! written in the style of third-party NF code (DPDK-like mbufs, GNU
//! keywords, debug-only blocks). Each principle was missing once and made a
//! real-world unit wrong; the fixture reproduces the construct, not the unit.

use nfc_analyzer::{analyze, input_from_paths, AnalyzeOptions};
use nfc_core::facts::{Facts, Question};

/// Analyse one C source given as text.
fn facts(src: &str) -> Facts {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nf.c");
    std::fs::write(&path, src).unwrap();
    let input = input_from_paths(None, &[path]).unwrap();
    analyze(&input, &AnalyzeOptions::default()).unwrap().0
}

const MBUF: &str = r#"
#include <stdint.h>
struct rte_mbuf { void *buf_addr; uint16_t port; uint64_t dynfield1[9]; uint64_t ol_flags; };
struct rte_ether_addr { uint8_t addr_bytes[6]; };
struct rte_ether_hdr { struct rte_ether_addr dst_addr; struct rte_ether_addr src_addr; uint16_t ether_type; };
#define rte_pktmbuf_mtod(m, t) ((t)((char *)(m)->buf_addr))
uint16_t rte_eth_rx_burst(uint16_t port, uint16_t q, struct rte_mbuf **pkts, uint16_t n);
uint16_t rte_eth_tx_burst(uint16_t port, uint16_t q, struct rte_mbuf **pkts, uint16_t n);
"#;

/// The IPv4 header as Linux declares it (for fixtures written in kernel
/// or nDPI style).
const IPHDR: &str = "struct iphdr { uint8_t ihl; uint8_t tos; uint16_t tot_len; uint16_t id; uint16_t frag_off; uint8_t ttl; uint8_t protocol; uint16_t check; uint32_t saddr; uint32_t daddr; };";

#[test]
fn a_struct_copied_into_the_packet_is_no_write_of_the_source_table() {
    // `*to = *from` through `__restrict` pointers: the table is only read.
    let f = facts(&format!(
        "{MBUF}
static struct rte_ether_addr ports_eth_addr[32];
static inline void addr_copy(const struct rte_ether_addr *__restrict from,
                             struct rte_ether_addr *__restrict to) {{ *to = *from; }}
void main_loop(void) {{
    struct rte_mbuf *pkts[32];
    uint16_t n = rte_eth_rx_burst(0, 0, pkts, 32);
    for (uint16_t i = 0; i < n; i++) {{
        struct rte_ether_hdr *eth = rte_pktmbuf_mtod(pkts[i], struct rte_ether_hdr *);
        addr_copy(&ports_eth_addr[pkts[i]->port], &eth->src_addr);
    }}
    rte_eth_tx_burst(1, 0, pkts, n);
}}"
    ));
    assert!(!f.stateful, "{f:?}");
    assert!(f.splittable(), "{f:?}");
}

#[test]
fn a_transmit_buffer_of_descriptors_is_a_queue_not_flow_state() {
    let f = facts(&format!(
        "{MBUF}
struct tx_buf {{ uint16_t len; struct rte_mbuf *m_table[32]; }};
static struct tx_buf tx_mbufs[8];
static uint16_t route(const struct rte_ether_hdr *eth) {{ return eth->dst_addr.addr_bytes[5] & 7; }}
void main_loop(void) {{
    struct rte_mbuf *pkts[32];
    uint16_t n = rte_eth_rx_burst(0, 0, pkts, 32);
    for (uint16_t i = 0; i < n; i++) {{
        struct rte_mbuf *m = pkts[i];
        uint16_t port = route(rte_pktmbuf_mtod(m, struct rte_ether_hdr *));
        uint16_t len = tx_mbufs[port].len;
        tx_mbufs[port].m_table[len] = m;
        len++;
        if (len == 32) {{ rte_eth_tx_burst(port, 0, tx_mbufs[port].m_table, len); len = 0; }}
        tx_mbufs[port].len = len;
    }}
}}"
    ));
    assert!(!f.stateful, "{f:?}");
    assert!(f.split_hazards.is_empty(), "{:?}", f.split_hazards);
    assert!(f.splittable(), "{f:?}");
}

#[test]
fn a_window_compared_with_packet_data_is_no_mere_queue() {
    // A reorder buffer: the slot and the admission test use a per-packet
    // sequence number; splitting the window across cores changes what leaves.
    let f = facts(&format!(
        "{MBUF}
static int seqn_offset = 8;
static inline uint32_t *seqn_of(struct rte_mbuf *m) {{ return (uint32_t *)((uintptr_t)m + seqn_offset); }}
struct window {{ uint32_t min_seqn; struct rte_mbuf *slots[64]; }};
static struct window win;
void main_loop(void) {{
    struct rte_mbuf *pkts[32];
    uint16_t n = rte_eth_rx_burst(0, 0, pkts, 32);
    for (uint16_t i = 0; i < n; i++) {{
        uint32_t s = *seqn_of(pkts[i]);
        if (s < win.min_seqn) continue;
        win.slots[(s - win.min_seqn) & 63] = pkts[i];
        while (win.slots[win.min_seqn & 63]) {{
            rte_eth_tx_burst(1, 0, &win.slots[win.min_seqn & 63], 1);
            win.slots[win.min_seqn & 63] = 0;
            win.min_seqn++;
        }}
    }}
}}"
    ));
    assert!(!f.splittable(), "{f:?}");
}

#[test]
fn a_timestamp_in_a_descriptor_field_is_a_packet_write() {
    // The dynamic-field offset is a global; the write lands in the mbuf.
    let f = facts(&format!(
        "{MBUF}
static int tsc_offset = -1;
#define DYNFIELD(m, off, t) ((t)((uintptr_t)(m) + (off)))
static inline uint64_t *tsc_field(struct rte_mbuf *m) {{ return DYNFIELD(m, tsc_offset, uint64_t *); }}
uint16_t add_timestamps(uint16_t port, uint16_t q, struct rte_mbuf **pkts, uint16_t n, uint16_t max, void *arg) {{
    for (uint16_t i = 0; i < n; i++) *tsc_field(pkts[i]) = 42;
    return n;
}}"
    ));
    assert!(!f.stateful, "{f:?}");
    assert!(!f.is_unknown(Question::FlowKey), "{f:?}");
    assert!(f.splittable(), "{f:?}");
}

#[test]
fn a_macro_in_a_debug_only_block_is_no_blind_spot() {
    // `#ifdef X` with X defined nowhere is dropped by the preprocessor; a
    // macro invoked there cannot hide a state write from the default build.
    // (No format string: a macro handed one only formats its arguments,
    // see `a_macro_handed_a_format_string_only_formats_packet_data`.)
    let src = |guard: &str| {
        format!(
            "{MBUF}
{guard}
#define TRACE(...) trace_emit(__VA_ARGS__)
struct counters {{ uint64_t rx; }};
static struct counters stats;
void main_loop(void) {{
    struct rte_mbuf *pkts[32];
    uint16_t n = rte_eth_rx_burst(0, 0, pkts, 32);
#ifdef NF_DEBUG
    if (n > 0) TRACE(n, &stats);
#endif
    rte_eth_tx_burst(1, 0, pkts, n);
}}"
        )
    };
    let f = facts(&src(""));
    assert!(!f.is_unknown(Question::Stateful), "{f:?}");
    assert!(!f.stateful, "{f:?}");
    // Built with the switch on, the macro's expansion is unseen: unknown.
    let f = facts(&src("#define NF_DEBUG 1"));
    assert!(f.is_unknown(Question::Stateful), "{f:?}");
}

#[test]
fn a_byte_index_into_the_frame_keys_by_its_field_through_accessor_macros() {
    // `rte_pktmbuf_mtod` defined as a macro over `buf_addr + data_off` stays
    // the frame-start accessor; a meter picked by byte 33 of the frame (the
    // last byte of the IPv4 destination) is keyed by dst_ip, and a colour
    // written back into byte 5 does not make the frame pointer carry dst_mac.
    let f = facts(
        r#"
#include <stdint.h>
struct rte_mbuf { void *buf_addr; uint16_t data_off; uint32_t pkt_len; };
#define rte_pktmbuf_mtod_offset(m, t, o) ((t)((char *)(m)->buf_addr + (m)->data_off + (o)))
#define rte_pktmbuf_mtod(m, t) rte_pktmbuf_mtod_offset(m, t, 0)
#define FLOW_POS 33
#define COLOR_POS 5
struct meter { uint64_t tc; };
static struct meter app_flows[4];
static const uint8_t policer_table[3][3] = {{0, 1, 2}, {1, 1, 2}, {2, 2, 2}};
uint16_t rte_eth_rx_burst(uint16_t port, uint16_t q, struct rte_mbuf **pkts, uint16_t n);
static inline int check(struct meter *m, uint32_t len) { if (m->tc < len) return 1; m->tc -= len; return 0; }
static inline void set_color(uint8_t *pkt_data, int color) { pkt_data[COLOR_POS] = (uint8_t)color; }
static inline int handle(struct rte_mbuf *pkt) {
  uint8_t *pkt_data = rte_pktmbuf_mtod(pkt, uint8_t *);
  uint8_t flow_id = (uint8_t)(pkt_data[FLOW_POS] & 3);
  uint8_t in = pkt_data[COLOR_POS];
  int out = check(&app_flows[flow_id], 64);
  set_color(pkt_data, policer_table[in][out]);
  return 0;
}
void main_loop(void) {
  struct rte_mbuf *pkts_rx[32];
  uint16_t n = rte_eth_rx_burst(0, 0, pkts_rx, 32);
  for (int i = 0; i < n; i++) handle(pkts_rx[i]);
}
"#,
    );
    assert!(f.stateful, "{f:?}");
    assert_eq!(f.flow_key, vec![nfc_core::facts::Field::DstIp], "{f:?}");
}

#[test]
fn an_entry_whose_type_name_says_pkt_is_no_packet_descriptor() {
    // A reassembly table's entries (`struct frag_pkt`) hold keys taken from
    // the packet: the table is flow state, not a queue of packets.
    let f = facts(&format!(
        "{MBUF}
struct rte_ipv4_hdr {{ uint8_t vihl, tos; uint16_t len, id, frag; uint8_t ttl, proto; uint16_t csum; uint32_t src_addr, dst_addr; }};
struct frag_pkt {{ uint32_t src, dst; struct rte_mbuf *frags[4]; uint32_t n; }};
static struct frag_pkt table[64];
static struct frag_pkt *lookup(uint32_t src, uint32_t dst) {{
    struct frag_pkt *e = &table[(src ^ dst) & 63];
    if (e->src != src || e->dst != dst) {{ e->src = src; e->dst = dst; e->n = 0; }}
    return e;
}}
void main_loop(void) {{
    struct rte_mbuf *pkts[32];
    uint16_t n = rte_eth_rx_burst(0, 0, pkts, 32);
    for (uint16_t i = 0; i < n; i++) {{
        struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)((char *)pkts[i]->buf_addr + 14);
        struct frag_pkt *e = lookup(ip->src_addr, ip->dst_addr);
        e->frags[e->n++ & 3] = pkts[i];
    }}
}}"
    ));
    assert!(f.stateful, "{f:?}");
}

/// XDP programs in libbpf style, with the helper declarations libbpf's
/// headers would give (not included: the analyzer must not need them).
const XDP: &str = r#"
typedef unsigned int __u32; typedef unsigned short __u16; typedef unsigned long long __u64;
struct xdp_md { __u32 data; __u32 data_end; __u32 data_meta; __u32 ingress_ifindex; __u32 rx_queue_index; };
struct iphdr { unsigned char ihl_version, tos; __u16 tot_len, id, frag_off; unsigned char ttl, protocol; __u16 check; __u32 saddr, daddr; };
struct tcphdr { __u16 source, dest; __u32 seq, ack_seq; };
static void *(* const bpf_map_lookup_elem)(void *map, const void *key) = (void *) 1;
#define __uint(name, val) int (*name)[val]
#define __type(name, val) typeof(val) *name
#define SEC(name) __attribute__((section(name), used))
"#;

#[test]
fn a_packet_pointer_cast_through_a_long_stays_a_packet_pointer_and_bpf_hash_maps_chain() {
    // `(void *)(long)ctx->data`: the address, not a number; a
    // BPF_MAP_TYPE_HASH chains its entries in the kernel.
    let f = facts(&format!(
        "{XDP}
struct key {{ __u32 a, b; __u16 pa, pb; }};
struct st {{ __u32 seq; __u32 dup; }};
struct {{ __uint(type, BPF_MAP_TYPE_HASH); __uint(max_entries, 64); __type(key, struct key); __type(value, struct st); }} flows SEC(\".maps\");
SEC(\"xdp\")
int prog(struct xdp_md *ctx) {{
    void *data_end = (void *)(long)ctx->data_end;
    void *data = (void *)(long)ctx->data;
    struct iphdr *ip = data + 14;
    struct tcphdr *tcp = data + 34;
    struct key k = {{}};
    if ((void *)(tcp + 1) > data_end) return 2;
    k.a = ip->saddr; k.b = ip->daddr; k.pa = tcp->source; k.pb = tcp->dest;
    struct st *s = bpf_map_lookup_elem(&flows, &k);
    if (!s) return 2;
    s->seq = tcp->seq;
    return 1;
}}"
    ));
    assert!(f.stateful, "{f:?}");
    assert_eq!(
        f.flow_key.iter().map(|x| x.to_string()).collect::<Vec<_>>(),
        ["src_ip", "dst_ip", "src_port", "dst_port"],
        "{f:?}"
    );
    assert!(f.pointer_chasing, "{f:?}");
}

#[test]
fn a_table_indexed_by_the_receive_queue_is_per_queue_not_per_flow() {
    let f = facts(&format!(
        "{XDP}
struct rec {{ __u64 processed; }};
struct rec per_queue[64];
SEC(\"xdp\")
int prog(struct xdp_md *ctx) {{
    per_queue[ctx->rx_queue_index & 63].processed++;
    return 2;
}}"
    ));
    assert!(!f.stateful, "{f:?}");
}

#[test]
fn a_lookup_in_a_table_outside_the_code_is_unknown_not_stateless() {
    let f = facts(&format!(
        "{XDP}
struct tuple {{ __u32 src, dst; __u16 sport, dport; }};
struct offload {{ __u32 dir; __u32 nat_ip; }};
struct offload *flow_lookup(struct xdp_md *ctx, struct tuple *t);
SEC(\"xdp\")
int prog(struct xdp_md *ctx) {{
    void *data = (void *)(long)ctx->data;
    struct iphdr *ip = data + 14;
    struct tuple t = {{}};
    t.src = ip->saddr; t.dst = ip->daddr;
    struct offload *o = flow_lookup(ctx, &t);
    if (!o) return 2;
    ip->daddr = o->nat_ip;
    return 3;
}}"
    ));
    assert!(f.is_unknown(Question::Stateful), "{f:?}");
}

#[test]
fn macros_expand_as_the_c_preprocessor_does() {
    // An object-like alias names the map; an argument holding `->` is one
    // argument; a blank may precede the argument list.
    let f = facts(&format!(
        "{XDP}
#define MAP_NAME counters
#define BUMP(p, v) ((p)->n += (v))
#define PORT_OF (t) ((t)->dest)
struct cnt {{ __u64 n; }};
struct {{ __uint(type, BPF_MAP_TYPE_PERCPU_HASH); __type(key, __u16); __type(value, struct cnt); }} MAP_NAME SEC(\".maps\");
SEC(\"xdp\")
int prog(struct xdp_md *ctx) {{
    void *data = (void *)(long)ctx->data;
    struct tcphdr *tcp = data + 34;
    __u16 port = tcp->dest;
    struct cnt *c = bpf_map_lookup_elem(&counters, &port);
    if (c) BUMP (c, 1);
    return 2;
}}"
    ));
    assert!(f.stateful, "{f:?}");
    assert_eq!(
        f.flow_key.iter().map(|x| x.to_string()).collect::<Vec<_>>(),
        ["dst_port"],
        "{f:?}"
    );
}

#[test]
fn a_recursive_packet_function_is_still_an_entry() {
    // An action list that re-enters itself (a sample action running nested
    // actions) has no caller outside the cycle: it is the entry.
    let f = facts(
        r#"
#include <stdint.h>
struct dp_packet { uint8_t *data; uint32_t hash; };
struct dp_packet_batch { int n; struct dp_packet *packets[32]; };
static uint64_t seen[1024];
void execute_actions(struct dp_packet_batch *batch, const int *acts, int n);
static void sample(struct dp_packet_batch *batch, const int *acts, int n) { execute_actions(batch, acts + 1, n - 1); }
void execute_actions(struct dp_packet_batch *batch, const int *acts, int n) {
    for (int i = 0; i < n; i++) {
        if (acts[i] == 1) sample(batch, acts, n);
        else seen[batch->packets[0]->data[26] & 1023]++;
    }
}
"#,
    );
    assert!(
        f.evidence
            .iter()
            .any(|e| e.reason.contains("per-packet entry `execute_actions`")),
        "{f:?}"
    );
}

#[test]
fn an_out_parameter_of_a_typedefd_scalar_behind_an_empty_attribute_macro_is_no_state() {
    // `typedef uint16_t OVS_BITWISE ovs_be16;` with OVS_BITWISE defined
    // empty: the typedef parses, and a parser writing the caller's
    // `ovs_be16 *` out-parameter keeps no state.
    let f = facts(
        r#"
#include <stdint.h>
#define OVS_BITWISE
typedef uint16_t OVS_BITWISE ovs_be16;
struct dp_packet { uint8_t *data; };
void parse_vlan(struct dp_packet *p, ovs_be16 *first_vlan_tci_p) {
    *first_vlan_tci_p = *(uint16_t *)(p->data + 14);
}
"#,
    );
    assert!(!f.stateful, "{f:?}");
    assert!(!f.is_unknown(Question::Stateful), "{f:?}");
}

#[test]
fn comparing_one_stored_value_with_packet_data_locates_no_entry() {
    // One PTP session: the master's clock id is compared with the packet's,
    // and the session's counters are updated; nothing is keyed per flow.
    let f = facts(&format!(
        "{MBUF}
#include <string.h>
struct clock_id {{ uint8_t id[8]; }};
struct session {{ struct clock_id master; uint32_t syncs; }};
static struct session sess;
void main_loop(void) {{
    struct rte_mbuf *pkts[32];
    uint16_t n = rte_eth_rx_burst(0, 0, pkts, 32);
    for (uint16_t i = 0; i < n; i++) {{
        struct rte_ether_hdr *eth = rte_pktmbuf_mtod(pkts[i], struct rte_ether_hdr *);
        struct clock_id *cid = (struct clock_id *)(eth + 1);
        if (eth->ether_type == 0x88f7)
            memcpy(&sess.master, cid, sizeof(struct clock_id));
        else if (memcmp(&sess.master, cid, sizeof(struct clock_id)) == 0)
            sess.syncs++;
    }}
    rte_eth_tx_burst(1, 0, pkts, n);
}}"
    ));
    assert!(!f.stateful, "{f:?}");
}

#[test]
fn a_local_reused_for_the_source_and_then_the_destination_keys_each_lookup_by_one() {
    // `key = dst; lookup; key = src; lookup`: the flow-insensitive value of
    // `key` holds both ports, which would make both lookups look keyed by
    // {src_port, dst_port} (broader than either: unsafe). Each lookup is
    // keyed by what reaches it, and the two share no field: no flow key.
    let f = facts(&format!(
        "{XDP}
struct {{ __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); __uint(max_entries, 65536); __type(key, __u32); __type(value, __u64); }} ports SEC(\".maps\");
static int check(__u32 *key) {{
    __u64 *v = bpf_map_lookup_elem(&ports, key);
    if (v) {{ *v += 1; return 1; }}
    return 0;
}}
SEC(\"xdp\")
int prog(struct xdp_md *ctx) {{
    void *data = (void *)(long)ctx->data;
    struct tcphdr *tcp = data + 34;
    __u32 key;
    key = tcp->dest;
    if (check(&key)) return 1;
    key = tcp->source;
    if (check(&key)) return 1;
    return 2;
}}"
    ));
    assert!(f.stateful, "{f:?}");
    assert!(f.flow_key.is_empty(), "{f:?}");
    assert!(
        f.unknown.iter().all(|u| u.question != Question::FlowKey),
        "{f:?}"
    );
}

#[test]
fn a_cursor_in_a_per_cpu_map_is_already_per_core() {
    // A round-robin cursor written on every packet and steering it: in a
    // shared array it makes the NF unsplittable, in a per-CPU array each
    // core already has its own, so per-core instances behave as the program.
    let prog = |map_type: &str| {
        facts(&format!(
            "{XDP}
struct {{ __uint(type, {map_type}); __uint(max_entries, 1); __type(key, __u32); __type(value, __u32); }} cursor SEC(\".maps\");
SEC(\"xdp\")
int prog(struct xdp_md *ctx) {{
    __u32 zero = 0;
    __u32 *c = bpf_map_lookup_elem(&cursor, &zero);
    if (!c) return 0;
    *c += 1;
    if (*c == 4) {{ *c = 0; return 1; }}
    return 2;
}}"
        ))
    };
    let shared = prog("BPF_MAP_TYPE_ARRAY");
    assert!(!shared.splittable(), "{shared:?}");
    let per_cpu = prog("BPF_MAP_TYPE_PERCPU_ARRAY");
    assert!(per_cpu.split_hazards.is_empty(), "{per_cpu:?}");
    assert!(per_cpu.splittable(), "{per_cpu:?}");
}

#[test]
fn a_key_ordered_by_branches_serves_both_directions() {
    // `if (a < b) { lo = a; hi = b; } else { lo = b; hi = a; }`: each member
    // holds either address, the pair holds both in either direction.
    let f = ordered_pair(
        "if (ip->saddr < ip->daddr) { k.lo = ip->saddr; k.hi = ip->daddr; }
    else { k.lo = ip->daddr; k.hi = ip->saddr; }",
    );
    assert!(f.stateful, "{f:?}");
    assert!(f.symmetric, "{f:?}");
    assert_eq!(
        f.flow_key.iter().map(|x| x.to_string()).collect::<Vec<_>>(),
        ["src_ip", "dst_ip"],
        "{f:?}"
    );
}

const IPV4: &str = r#"
typedef uint64_t wide_u64_t;
struct rte_ipv4_hdr { uint8_t version_ihl; uint8_t tos; uint16_t total_length; uint16_t packet_id;
    uint16_t fragment_offset; uint8_t ttl; uint8_t next_proto_id; uint16_t cksum;
    uint32_t src_addr; uint32_t dst_addr; };
"#;

#[test]
fn a_wide_read_from_a_member_address_covers_the_fields_that_follow() {
    // `*(uint64_t *)&ip->src_addr` reads the source and the destination
    // address (the layout of the struct says where the member is); the
    // width comes through a typedef.
    let f = facts(&format!(
        "{MBUF}{IPV4}
struct frag {{ uint64_t src_dst; uint32_t count; }};
static struct frag frags[1024];
void main_loop(void) {{
    struct rte_mbuf *pkts[32];
    uint16_t n = rte_eth_rx_burst(0, 0, pkts, 32);
    for (uint16_t i = 0; i < n; i++) {{
        struct rte_ether_hdr *eth = rte_pktmbuf_mtod(pkts[i], struct rte_ether_hdr *);
        struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
        const wide_u64_t *psd = (const wide_u64_t *)&ip->src_addr;
        uint64_t k = psd[0];
        struct frag *e = &frags[(k ^ (k >> 29)) & 1023];
        e->src_dst = k;
        e->count++;
    }}
    rte_eth_tx_burst(1, 0, pkts, n);
}}"
    ));
    assert!(f.stateful, "{f:?}");
    let key: Vec<String> = f.flow_key.iter().map(|k| k.to_string()).collect();
    assert_eq!(key, ["src_ip", "dst_ip"], "{f:?}");
}

#[test]
fn a_member_read_of_a_bitfield_header_stays_one_field() {
    // Bit-field packing is not modelled: the member's offset is unknown, so
    // a wide read through its address is only the member's own field
    // (never a guessed neighbour, which could make the key broader).
    let f = facts(&format!(
        "{MBUF}
struct iphdr {{ uint8_t ihl:4, version:4; uint8_t tos; uint16_t tot_len; uint16_t id; uint16_t frag_off;
    uint8_t ttl; uint8_t protocol; uint16_t check; uint32_t saddr; uint32_t daddr; }};
static uint64_t hits[1024];
void main_loop(void) {{
    struct rte_mbuf *pkts[32];
    uint16_t n = rte_eth_rx_burst(0, 0, pkts, 32);
    for (uint16_t i = 0; i < n; i++) {{
        struct rte_ether_hdr *eth = rte_pktmbuf_mtod(pkts[i], struct rte_ether_hdr *);
        struct iphdr *ip = (struct iphdr *)(eth + 1);
        const uint64_t *p = (const uint64_t *)&ip->saddr;
        hits[p[0] & 1023]++;
    }}
    rte_eth_tx_burst(1, 0, pkts, n);
}}"
    ));
    assert!(f.stateful, "{f:?}");
    let key: Vec<String> = f.flow_key.iter().map(|k| k.to_string()).collect();
    assert_eq!(key, ["src_ip"], "{f:?}");
}

#[test]
fn a_descriptor_local_reassigned_to_a_stored_packet_touches_state_only_after() {
    // `m` is the received packet until a reassembly hands back a stored
    // one; after the join the stored packet is located by what located its
    // entry (the received packet's path bounds no key). (The unit this
    // comes from, DPDK's ip_reassembly, also needs the flow-sensitive drop
    // of state accesses made through `m` before the join; a descriptor's
    // members here are packet writes either way.)
    let f = facts(&format!(
        "{MBUF}{IPV4}
struct held {{ uint32_t src; uint32_t dst; struct rte_mbuf *first; uint16_t n; }};
static struct held table[1024];
static struct rte_mbuf *reassemble(struct rte_mbuf *m, struct rte_ipv4_hdr *ip) {{
    struct held *h = &table[(ip->src_addr ^ ip->dst_addr) & 1023];
    if (h->first == 0) {{
        h->src = ip->src_addr;
        h->dst = ip->dst_addr;
        h->first = m;
        return 0;
    }}
    return h->first;
}}
void main_loop(void) {{
    struct rte_mbuf *pkts[32];
    uint16_t n = rte_eth_rx_burst(0, 0, pkts, 32);
    for (uint16_t i = 0; i < n; i++) {{
        struct rte_mbuf *m = pkts[i];
        struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
        struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
        m->ol_flags = 0;
        struct rte_mbuf *mo = reassemble(m, ip);
        if (mo == 0) continue;
        if (mo != m) m = mo;
        m->ol_flags |= 1;
        rte_eth_tx_burst(1, 0, &m, 1);
    }}
}}"
    ));
    assert!(f.stateful, "{f:?}");
    // Writes to a descriptor's members are packet writes, whichever packet
    // it is: the table itself is written only when a datagram starts.
    assert_eq!(f.intensity, nfc_core::facts::Intensity::PerFlow, "{f:?}");
    let key: Vec<String> = f.flow_key.iter().map(|k| k.to_string()).collect();
    assert_eq!(key, ["src_ip", "dst_ip"], "{f:?}");
}

const FLOWTABLE: &str = r#"
struct flow_key { uint32_t src; uint32_t dst; uint16_t sport; uint16_t dport; };
struct flow { struct flow_key key; uint32_t start; uint32_t pkts; };
struct flow_tbl { struct flow flows[64]; uint32_t n; };
static inline int same_flow(struct flow_key a, struct flow_key b) {
    return a.src == b.src && a.dst == b.dst && a.sport == b.sport && a.dport == b.dport;
}
struct l4 { uint16_t src_port; uint16_t dst_port; };
"#;

#[test]
fn a_search_loop_locates_the_entry_by_the_fields_it_matches() {
    // GRO-style: the caller hands in a table; the packet path finds its
    // flow by a loop that stops at the entry whose stored key equals the
    // packet's, so entries are keyed by the compared fields.
    let f = facts(&format!(
        "{MBUF}{IPV4}{FLOWTABLE}
int reassemble(struct rte_mbuf *pkt, struct flow_tbl *tbl) {{
    struct rte_ether_hdr *eth = rte_pktmbuf_mtod(pkt, struct rte_ether_hdr *);
    struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
    struct l4 *l4 = (struct l4 *)(ip + 1);
    struct flow_key key;
    uint32_t i;
    key.src = ip->src_addr;
    key.dst = ip->dst_addr;
    key.sport = l4->src_port;
    key.dport = l4->dst_port;
    for (i = 0; i < tbl->n; i++) {{
        if (same_flow(tbl->flows[i].key, key))
            break;
    }}
    if (i == tbl->n) {{
        tbl->flows[tbl->n].key = key;
        tbl->flows[tbl->n].pkts = 1;
        tbl->n++;
        return 0;
    }}
    tbl->flows[i].pkts++;
    return 1;
}}"
    ));
    assert!(f.stateful, "{f:?}");
    let key: Vec<String> = f.flow_key.iter().map(|k| k.to_string()).collect();
    assert_eq!(key, ["src_ip", "dst_ip", "src_port", "dst_port"], "{f:?}");
}

#[test]
fn a_search_loop_matching_either_field_says_no_key() {
    // `e->src == a || e->dst == a` finds an entry by either address: the
    // pair is no key (an RSS on both would split one host's entry).
    let f = facts(&format!(
        "{MBUF}{IPV4}
struct host {{ uint32_t addr; uint32_t pkts; }};
struct hosts {{ struct host h[64]; uint32_t n; }};
int count(struct rte_mbuf *pkt, struct hosts *t) {{
    struct rte_ether_hdr *eth = rte_pktmbuf_mtod(pkt, struct rte_ether_hdr *);
    struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
    uint32_t i;
    for (i = 0; i < t->n; i++) {{
        if (t->h[i].addr == ip->src_addr || t->h[i].addr == ip->dst_addr)
            break;
    }}
    if (i == t->n) return 0;
    t->h[i].pkts++;
    return 1;
}}"
    ));
    let key: Vec<String> = f.flow_key.iter().map(|k| k.to_string()).collect();
    assert_ne!(key, ["src_ip", "dst_ip"], "{f:?}");
    assert!(!f.splittable(), "{f:?}");
}

/// Stateful, with a key the code decides is empty (not unknown): kept
/// shared.
fn assert_decided_no_key(f: &Facts) {
    assert!(f.stateful, "{f:?}");
    assert!(f.flow_key.is_empty(), "{f:?}");
    assert!(
        !f.unknown.iter().any(|u| u.question == Question::FlowKey),
        "{:?}",
        f.unknown
    );
    assert!(!f.splittable(), "{f:?}");
}

#[test]
fn keys_that_already_share_no_field_decide_over_payload_located_accesses() {
    // A server cache found by the source address here and the destination
    // address there shares no field; a write at a payload-derived offset
    // of the same object cannot give it one back: the key is empty, not
    // unknown.
    let f = facts(&format!(
        "{MBUF}{IPV4}
struct module {{ uint32_t cache[1024]; uint8_t hist[256]; }};
int inspect(struct rte_mbuf *pkt, struct module *m, int from_server) {{
    struct rte_ether_hdr *eth = rte_pktmbuf_mtod(pkt, struct rte_ether_hdr *);
    struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
    uint8_t *payload = (uint8_t *)(ip + 1);
    if (from_server)
        m->cache[ip->src_addr & 1023] = 1;
    else if (m->cache[ip->dst_addr & 1023])
        return 1;
    m->hist[payload[3]]++;
    return 0;
}}"
    ));
    assert_decided_no_key(&f);
}

#[test]
fn an_endpoint_found_by_source_here_and_destination_there_has_no_key() {
    // (address, port) of the source on insert, of the destination on
    // lookup: replies find the entry (symmetric), but one entry serves every
    // connection of that endpoint, so no RSS field set keeps it on one core.
    let f = facts(&format!(
        "{MBUF}{IPV4}{FLOWTABLE}
struct ep {{ uint32_t addr; uint16_t port; uint16_t proto; }};
static struct ep endpoints[4096];
int seen(struct rte_mbuf *pkt, int learn) {{
    struct rte_ether_hdr *eth = rte_pktmbuf_mtod(pkt, struct rte_ether_hdr *);
    struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
    struct l4 *l4 = (struct l4 *)(ip + 1);
    if (learn) {{
        uint32_t k = ip->src_addr + l4->src_port;
        endpoints[k & 4095].proto = 17;
        return 0;
    }}
    uint32_t r = ip->dst_addr + l4->dst_port;
    return endpoints[r & 4095].proto;
}}"
    ));
    assert!(f.stateful, "{f:?}");
    assert!(f.flow_key.is_empty(), "{f:?}");
    assert!(f.symmetric, "{f:?}");
    assert!(!f.splittable(), "{f:?}");
}

#[test]
fn a_constant_argument_selects_the_branch_the_callee_takes() {
    // `endpoint_key(ip, 0)` is the source address, `endpoint_key(ip, 1)`
    // the destination: each call walks the branch its constant selects,
    // so the cache is found by different fields and has no key, whatever
    // the payload-located access adds (unknown without the branch taken).
    let f = facts(&format!(
        "{MBUF}{IPV4}
static uint32_t seen[4096];
static uint32_t endpoint_key(const struct rte_ipv4_hdr *ip, int rev) {{
    if (rev)
        return ip->dst_addr;
    else
        return ip->src_addr;
}}
int classify(struct rte_mbuf *pkt) {{
    struct rte_ether_hdr *eth = rte_pktmbuf_mtod(pkt, struct rte_ether_hdr *);
    struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
    uint8_t *payload = (uint8_t *)(ip + 1);
    if (seen[endpoint_key(ip, 1) & 4095])
        return 1;
    seen[endpoint_key(ip, 0) & 4095] = 1;
    seen[payload[2]] |= 2;
    return 0;
}}"
    ));
    assert_decided_no_key(&f);
}

#[test]
fn a_variable_argument_selects_no_branch() {
    // `rev` is 0 or 1 depending on the packet: both branches of the callee
    // stay live, and the table is found by either address.
    let f = facts(&format!(
        "{MBUF}{IPV4}
static uint32_t seen[4096];
static uint32_t endpoint_key(const struct rte_ipv4_hdr *ip, int rev) {{
    if (rev)
        return ip->dst_addr;
    return ip->src_addr;
}}
int classify(struct rte_mbuf *pkt) {{
    struct rte_ether_hdr *eth = rte_pktmbuf_mtod(pkt, struct rte_ether_hdr *);
    struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
    int rev = 0;
    if (ip->ttl < 5)
        rev = 1;
    seen[endpoint_key(ip, rev) & 4095]++;
    return 0;
}}"
    ));
    assert!(f.stateful, "{f:?}");
    let key: Vec<String> = f.flow_key.iter().map(|k| k.to_string()).collect();
    assert!(key != ["src_ip"] && key != ["dst_ip"], "{f:?}");
}

#[test]
fn a_root_handed_the_raw_frame_is_a_packet_path_beside_descriptor_accessors() {
    // A library whose public accessors take the parsed packet and write
    // nothing, and whose real entry is handed the raw frame and keeps its
    // packet in a context (nDPI's `ndpi_detection_process_packet`).
    let f = facts(
        r#"
#include <stdint.h>
struct my_iphdr { uint8_t ihl_ver, tos; uint16_t tot_len, id, frag_off; uint8_t ttl, protocol; uint16_t check; uint32_t saddr, daddr; };
struct my_packet { const struct my_iphdr *iph; uint16_t len; };
struct my_ctx { struct my_packet packet; };
static uint32_t hosts[1024];
int my_packet_src_eql(const struct my_packet *packet, uint32_t ip) { return packet->iph->saddr == ip; }
int my_packet_dst_eql(const struct my_packet *packet, uint32_t ip) { return packet->iph->daddr == ip; }
void my_process_packet(struct my_ctx *ctx, const unsigned char *packet_data, unsigned short len) {
    struct my_packet *packet = &ctx->packet;
    const struct my_iphdr *iph = (const struct my_iphdr *) (packet_data + 14);
    packet->len = len;
    hosts[iph->saddr % 1024]++;
}
"#,
    );
    assert!(f.stateful, "{f:?}");
    let key: Vec<String> = f.flow_key.iter().map(|k| format!("{k:?}")).collect();
    assert_eq!(key, ["SrcIp"], "{f:?}");
}

#[test]
fn a_header_cast_from_the_address_of_a_frame_byte_is_that_header() {
    // `(struct iphdr *) &packet[ip_offset]` points at the IPv4 header as
    // much as `packet + ip_offset` does.
    let f = facts(
        r#"
#include <stdint.h>
struct my_iphdr { uint8_t ihl_ver, tos; uint16_t tot_len, id, frag_off; uint8_t ttl, protocol; uint16_t check; uint32_t saddr, daddr; };
struct table { uint32_t counts[1024]; };
static struct table tbl;
void process(const unsigned char *packet, unsigned len, uint16_t ip_offset) {
    const struct my_iphdr *iph = (const struct my_iphdr *) &packet[ip_offset];
    uint32_t h = iph->saddr + iph->daddr;
    tbl.counts[h % 1024]++;
}
"#,
    );
    assert!(f.stateful, "{f:?}");
    let key: Vec<String> = f.flow_key.iter().map(|k| format!("{k:?}")).collect();
    assert_eq!(key, ["SrcIp", "DstIp"], "{f:?}");
    assert!(
        f.symmetric,
        "a sum of the address pair is direction-agnostic: {f:?}"
    );
}

#[test]
fn with_the_key_unknown_symmetry_is_unknown_too() {
    // A flow struct the caller hands in: how it is located (by a key that
    // serves both directions or not) is not in this code.
    let f = facts(&format!(
        "{MBUF}
struct conn {{ uint64_t packets[2]; uint32_t state; }};
void conn_update(struct conn *c, struct rte_mbuf *m, int reply) {{
    if (c->state == 2)
        return;
    c->packets[reply ? 1 : 0]++;
    c->state = 1;
}}"
    ));
    assert!(f.is_unknown(Question::FlowKey), "{f:?}");
    assert!(f.is_unknown(Question::Symmetric), "{f:?}");
}

#[test]
fn a_c_library_comparison_writes_no_state_whatever_header_is_missing() {
    // With a project header missing, state handed to code whose body is not
    // visible makes "stateless" a guess; `memcmp` is no such code: the C
    // standard says it only reads.
    let f = facts(&format!(
        "{MBUF}
#include \"not_shipped_with_this_nf.h\"
int memcmp(const void *a, const void *b, unsigned long n);
struct rte_ether_addr known[4];
static uint64_t matched;
void main_loop(void) {{
    struct rte_mbuf *pkts[32];
    uint16_t n = rte_eth_rx_burst(0, 0, pkts, 32);
    for (uint16_t i = 0; i < n; i++) {{
        struct rte_ether_hdr *eth = rte_pktmbuf_mtod(pkts[i], struct rte_ether_hdr *);
        if (memcmp(&known[i & 3], &eth->src_addr, 6) == 0)
            rte_eth_tx_burst(1, 0, &pkts[i], 1);
    }}
}}"
    ));
    assert!(!f.is_unknown(Question::Stateful), "{:?}", f.unknown);
    assert!(!f.stateful, "{f:?}");
}

#[test]
fn a_prototype_taking_state_through_const_pointers_writes_none() {
    // A library lookup whose body is not visible, with a project header
    // missing: its prototype says it only reads the table it is handed; the
    // result it fills is the caller's local, not state.
    let src = |qual: &str| {
        format!(
            "{MBUF}
#include \"not_shipped_with_this_nf.h\"
struct sad;
int sad_lookup({qual}struct sad *t, const uint32_t *key, void **res);
struct sad *table;
void main_loop(void) {{
    struct rte_mbuf *pkts[32];
    uint16_t n = rte_eth_rx_burst(0, 0, pkts, 32);
    for (uint16_t i = 0; i < n; i++) {{
        void *res = 0;
        sad_lookup(table, rte_pktmbuf_mtod(pkts[i], const uint32_t *), &res);
        if (res != 0)
            rte_eth_tx_burst(1, 0, &pkts[i], 1);
    }}
}}"
        )
    };
    let f = facts(&src("const "));
    assert!(!f.is_unknown(Question::Stateful), "{:?}", f.unknown);
    assert!(!f.stateful, "{f:?}");
    // Without `const` the callee may write the table: "stateless" would be
    // a guess.
    let f = facts(&src(""));
    assert!(f.is_unknown(Question::Stateful), "{f:?}");
}

#[test]
fn parts_of_one_array_of_structs_are_separate_objects() {
    // A per-core configuration holds a routing table (read, located by the
    // destination address) beside transmit buffers (written, at the port
    // the route gives): a keyed read of one part and the writes of another
    // make no per-flow object, and the buffers alone are a packet queue.
    let f = facts(&format!(
        "{MBUF}{IPV4}
struct route {{ uint32_t prefix; uint16_t port; }};
struct tx_buf {{ uint16_t len; struct rte_mbuf *m_table[32]; }};
struct lcore_conf {{ struct route routes[256]; struct tx_buf tx[8]; }};
static struct lcore_conf lcore_conf[4];
unsigned rte_lcore_id(void);
void main_loop(void) {{
    struct lcore_conf *qconf = &lcore_conf[rte_lcore_id() & 3];
    struct rte_mbuf *pkts[32];
    uint16_t n = rte_eth_rx_burst(0, 0, pkts, 32);
    for (uint16_t i = 0; i < n; i++) {{
        struct rte_mbuf *m = pkts[i];
        struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(m, struct rte_ipv4_hdr *);
        uint32_t dst = ip->dst_addr;
        struct route *r = &qconf->routes[dst >> 24];
        if (r->prefix != (dst & 0xffffff00)) continue;
        uint16_t port = r->port & 7;
        uint16_t len = qconf->tx[port].len;
        qconf->tx[port].m_table[len] = m;
        len++;
        if (len == 32) {{ rte_eth_tx_burst(port, 0, qconf->tx[port].m_table, len); len = 0; }}
        qconf->tx[port].len = len;
    }}
}}"
    ));
    assert!(!f.stateful, "{f:?}");
    assert!(f.split_hazards.is_empty(), "{:?}", f.split_hazards);
    assert!(
        f.state_objects.iter().all(|o| o.name != "lcore_conf"),
        "the whole array is no object: {:?}",
        f.state_objects
    );
}

#[test]
fn tables_behind_two_pointers_of_one_queue_conf_have_their_own_keys() {
    // One per-queue configuration points at a route table (read by the
    // destination) and at a fragment table (written by the address pair):
    // what the two pointers reach is two tables, and the fragment table's
    // key is not narrowed by the route lookup.
    let f = facts(&format!(
        "{MBUF}{IPV4}
struct routes {{ uint16_t hop[256]; }};
struct frag {{ uint32_t src, dst; uint32_t bytes; }};
struct frags {{ struct frag e[1024]; }};
struct rx_queue {{ struct routes *lpm; struct frags *tbl; uint16_t port; }};
struct lcore_queue_conf {{ uint16_t n_rx; struct rx_queue rxq[4]; }};
static struct lcore_queue_conf qconfs[8];
unsigned rte_lcore_id(void);
void main_loop(void) {{
    struct lcore_queue_conf *qconf = &qconfs[rte_lcore_id() & 7];
    for (unsigned q = 0; q < qconf->n_rx; q++) {{
        struct rx_queue *rxq = &qconf->rxq[q];
        struct rte_mbuf *pkts[32];
        uint16_t n = rte_eth_rx_burst(rxq->port, 0, pkts, 32);
        for (uint16_t i = 0; i < n; i++) {{
            struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(pkts[i], struct rte_ipv4_hdr *);
            uint32_t src = ip->src_addr, dst = ip->dst_addr;
            struct frag *e = &rxq->tbl->e[(src * 31 + dst) & 1023];
            e->src = src;
            e->dst = dst;
            e->bytes += ip->total_length;
            uint16_t hop = rxq->lpm->hop[dst >> 24];
            rte_eth_tx_burst(hop & 3, 0, &pkts[i], 1);
        }}
    }}
}}"
    ));
    assert!(f.stateful, "{f:?}");
    let key: Vec<String> = f.flow_key.iter().map(|k| k.to_string()).collect();
    assert_eq!(key, ["src_ip", "dst_ip"], "{f:?}");
}

#[test]
fn a_hash_chained_over_source_then_destination_is_no_symmetric_key() {
    // `v = h(src, seed); v = h(dst, v)` and a key array holding the source
    // words then the destination words keep the two in order: the entry of
    // one direction is not the entry of the other.
    let f = facts(&format!(
        "{MBUF}{IPV4}
struct ent {{ uint32_t key[2]; uint32_t hits; }};
static struct ent table[1024];
static inline uint32_t mix(uint32_t data, uint32_t init) {{ return (init << 5) + (init >> 2) + data; }}
void main_loop(void) {{
    struct rte_mbuf *pkts[32];
    uint16_t n = rte_eth_rx_burst(0, 0, pkts, 32);
    for (uint16_t i = 0; i < n; i++) {{
        struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(pkts[i], struct rte_ipv4_hdr *);
        uint32_t key[2];
        key[0] = ip->src_addr;
        key[1] = ip->dst_addr;
        uint32_t v = mix(key[0], 7);
        v = mix(key[1], v);
        struct ent *e = &table[v & 1023];
        e->key[0] = key[0];
        e->key[1] = key[1];
        e->hits++;
    }}
    rte_eth_tx_burst(1, 0, pkts, n);
}}"
    ));
    assert!(f.stateful, "{f:?}");
    assert!(!f.symmetric && !f.is_unknown(Question::Symmetric), "{f:?}");
}

#[test]
fn an_offset_read_from_state_in_a_loop_is_no_link_but_an_index_chain_is() {
    // Reassembly walks the stored fragments by comparing offsets and walks
    // a stored packet's segments: neither follows links through the table.
    // A free-list of entries chained by index does.
    let walk = facts(&format!(
        "{MBUF}{IPV4}
struct rte_mbuf *next_seg(struct rte_mbuf *m);
struct frag {{ uint16_t ofs, len; struct rte_mbuf *mb; }};
struct fpkt {{ uint32_t src, dst; struct frag frags[4]; }};
static struct fpkt table[1024];
void main_loop(void) {{
    struct rte_mbuf *pkts[32];
    uint16_t n = rte_eth_rx_burst(0, 0, pkts, 32);
    for (uint16_t i = 0; i < n; i++) {{
        struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(pkts[i], struct rte_ipv4_hdr *);
        struct fpkt *e = &table[(ip->src_addr * 31 + ip->dst_addr) & 1023];
        e->src = ip->src_addr;
        e->dst = ip->dst_addr;
        e->frags[ip->fragment_offset & 3].mb = pkts[i];
        e->frags[ip->fragment_offset & 3].ofs = ip->fragment_offset;
        uint16_t ofs = 0;
        while (ofs != ip->total_length) {{
            for (int j = 3; j != 0 && ofs != ip->total_length; j--)
                if (e->frags[j].ofs + e->frags[j].len == ofs)
                    ofs = e->frags[j].ofs;
        }}
        struct rte_mbuf *m = e->frags[0].mb;
        while (m->dynfield1[0] != 0)
            m = (struct rte_mbuf *)m->dynfield1[0];
    }}
    rte_eth_tx_burst(1, 0, pkts, n);
}}"
    ));
    assert!(walk.stateful, "{walk:?}");
    assert!(!walk.pointer_chasing, "{walk:?}");
    let chain = facts(&format!(
        "{MBUF}{IPV4}
struct ent {{ uint32_t src, dst; uint32_t next; uint32_t hits; }};
static struct ent pool[1024];
static uint32_t heads[256];
void main_loop(void) {{
    struct rte_mbuf *pkts[32];
    uint16_t n = rte_eth_rx_burst(0, 0, pkts, 32);
    for (uint16_t i = 0; i < n; i++) {{
        struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(pkts[i], struct rte_ipv4_hdr *);
        uint32_t k = heads[(ip->src_addr ^ (ip->dst_addr >> 3)) & 255];
        while (k != 0) {{
            if (pool[k].src == ip->src_addr && pool[k].dst == ip->dst_addr) {{ pool[k].hits++; break; }}
            k = pool[k].next;
        }}
    }}
    rte_eth_tx_burst(1, 0, pkts, n);
}}"
    ));
    assert!(chain.pointer_chasing, "{chain:?}");
}

#[test]
fn a_list_behind_a_pointer_of_a_handed_module_is_no_part_of_its_table() {
    // The caller hands a module holding a table (written per flow) and a
    // pointer to a configuration list (walked, never written): the walk
    // follows links through configuration, not through the table.
    let f = facts(&format!(
        "{MBUF}{IPV4}
struct name {{ uint32_t addr; struct name *next; }};
struct ent {{ uint32_t src, dst, hits; }};
struct module {{ struct name *trusted; struct ent *table; uint32_t mask; }};
int classify(struct module *mod, struct rte_mbuf *m) {{
    struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(m, struct rte_ipv4_hdr *);
    struct ent *e = &mod->table[(ip->src_addr * 31 + ip->dst_addr) & mod->mask];
    e->src = ip->src_addr;
    e->dst = ip->dst_addr;
    e->hits++;
    struct name *n = mod->trusted;
    while (n != 0) {{
        if (n->addr == ip->src_addr) return 1;
        n = n->next;
    }}
    return 0;
}}"
    ));
    assert!(f.stateful, "{f:?}");
    assert!(!f.pointer_chasing, "{f:?}");
}

#[test]
fn header_members_read_through_a_byte_pointer_of_the_descriptor_and_an_aligned_pair_type() {
    // OVS style: the descriptor holds an untyped base pointer (in the
    // `#else` of a build option no file defines); the IPv4 header is found
    // at offsets the code computes, and its addresses are read as
    // `{ hi, lo }` halves of a 16-bit-aligned struct laid over them.
    let f = facts(
        r#"#include <stdint.h>
#include <string.h>
#include <stdlib.h>
typedef uint32_t ovs_be32;
typedef uint16_t ovs_be16;
typedef struct { uint16_t hi, lo; } ovs_16aligned_be32;
struct ip_header { uint8_t ip_ihl_ver; uint8_t ip_tos; ovs_be16 ip_tot_len; ovs_be16 ip_id; ovs_be16 ip_frag_off; uint8_t ip_ttl; uint8_t ip_proto; ovs_be16 ip_csum; ovs_16aligned_be32 ip_src; ovs_16aligned_be32 ip_dst; };
struct dp_packet {
#ifdef DPDK_NETDEV
    struct rte_mbuf mbuf;
#else
    void *base_;
    uint16_t data_ofs;
#endif
    uint16_t l3_ofs; uint32_t recirc_id; };
static inline void *dp_packet_base(const struct dp_packet *b) { return b->base_; }
static inline void *dp_packet_data(const struct dp_packet *b) { return (char *) dp_packet_base(b) + b->data_ofs; }
static inline void *dp_packet_l3(const struct dp_packet *b) { return b->l3_ofs != UINT16_MAX ? (char *) dp_packet_data(b) + b->l3_ofs : NULL; }
static inline ovs_be32 get_16aligned_be32(const ovs_16aligned_be32 *x) { return ((ovs_be32) x->hi << 16) | x->lo; }
union ipf_addr { ovs_16aligned_be32 ipv4; ovs_be32 ipv4_aligned; };
struct ipf_list_key { union ipf_addr src_addr; union ipf_addr dst_addr; uint32_t recirc_id; ovs_be32 ip_id; uint16_t zone; uint8_t nw_proto; uint8_t pad; };
struct ipf_list { struct ipf_list_key key; uint32_t n; struct ipf_list *next; };
struct ipf { struct ipf_list *buckets[256]; uint32_t n; };
static inline uint32_t hash_add(uint32_t hash, uint32_t data) { return (hash * 31) ^ data; }
static inline uint32_t hash_add_bytes32(uint32_t hash, const uint32_t *p, size_t n) { for (size_t i = 0; i < n / 4; i++) hash = hash_add(hash, p[i]); return hash; }
static uint32_t ipf_addr_hash_add(uint32_t hash, const union ipf_addr *addr) { return hash_add_bytes32(hash, (const uint32_t *) addr, sizeof *addr); }
static uint32_t ipf_list_key_hash(const struct ipf_list_key *key, uint32_t basis) {
    uint32_t hsrc, hdst;
    hsrc = hdst = basis;
    hsrc = ipf_addr_hash_add(hsrc, &key->src_addr);
    hdst = ipf_addr_hash_add(hdst, &key->dst_addr);
    return hsrc ^ hdst ^ key->nw_proto;
}
static void ipf_v4_key_extract(struct dp_packet *pkt, struct ipf_list_key *key) {
    const struct ip_header *l3 = dp_packet_l3(pkt);
    memset(key, 0, sizeof *key);
    key->ip_id = l3->ip_id;
    key->src_addr.ipv4_aligned = get_16aligned_be32(&l3->ip_src);
    key->dst_addr.ipv4_aligned = get_16aligned_be32(&l3->ip_dst);
    key->nw_proto = l3->ip_proto;
    key->recirc_id = pkt->recirc_id;
}
static int key_eq(const struct ipf_list_key *a, const struct ipf_list_key *b) {
    return a->src_addr.ipv4_aligned == b->src_addr.ipv4_aligned && a->dst_addr.ipv4_aligned == b->dst_addr.ipv4_aligned && a->nw_proto == b->nw_proto && a->ip_id == b->ip_id;
}
void ipf_process(struct ipf *ipf, struct dp_packet *pkt) {
    struct ipf_list_key key;
    ipf_v4_key_extract(pkt, &key);
    uint32_t h = ipf_list_key_hash(&key, 7);
    struct ipf_list *l = ipf->buckets[h & 255];
    while (l && !key_eq(&l->key, &key)) l = l->next;
    if (l) { l->n++; return; }
    l = malloc(sizeof *l);
    l->key = key;
    l->n = 1;
    l->next = ipf->buckets[h & 255];
    ipf->buckets[h & 255] = l;
}
"#,
    );
    assert!(f.stateful, "{f:?}");
    let key: Vec<String> = f.flow_key.iter().map(|k| k.to_string()).collect();
    assert_eq!(key, ["src_ip", "dst_ip", "proto"], "{f:?}");
}

#[test]
fn a_macro_handed_a_format_string_only_formats_packet_data() {
    // OVS style: a parser writing into the caller's struct, logging what it
    // found through a variadic macro whose expansion is not analysed. A
    // format string says the macro turns its arguments into text; the same
    // macro without one could do anything with them, so "stateless" is then
    // not decided.
    let nf = |call: &str| {
        facts(&format!(
            "{MBUF}
struct parsed {{ uint16_t eth_type; }};
void vlog(int level, const char *fmt, ...);
#define LOG_DBG(...) vlog(7, __VA_ARGS__)
#define RECORD(...) record_all(__VA_ARGS__)
void parse(struct rte_mbuf *m, struct parsed *out) {{
    struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
    out->eth_type = eth->ether_type;
    {call};
}}"
        ))
    };
    let formatted = nf(r#"LOG_DBG("ether type %#x", eth->ether_type)"#);
    assert!(!formatted.stateful, "{formatted:?}");
    assert!(!formatted.is_unknown(Question::Stateful), "{formatted:?}");
    let blind = nf("RECORD(eth->ether_type, m->port)");
    assert!(blind.is_unknown(Question::Stateful), "{blind:?}");
}

#[test]
fn storage_located_by_the_running_core_is_that_cores_own() {
    // DPDK style: a per-lcore drain timestamp and transmit buffer, and a
    // per-lcore round-robin count that decides whether a packet is sent. Each
    // core has its own, so the code already runs as N independent copies:
    // no state, nothing that forbids a split. The same count in one slot
    // every core shares steers every core's packets: a split hazard.
    let nf = |slot: &str| {
        facts(&format!(
            "{MBUF}
unsigned rte_lcore_id(void);
uint64_t rte_rdtsc(void);
struct lcore_conf {{ uint64_t tx_tsc; uint16_t n; struct rte_mbuf *tx[32]; }};
struct stats {{ uint64_t rx; }};
static struct lcore_conf lcore_conf[64];
static struct stats port_stats[64];
void forward(struct rte_mbuf *m) {{
    unsigned lcore_id = rte_lcore_id();
    struct lcore_conf *qconf = &lcore_conf[{slot}];
    uint64_t cur = rte_rdtsc();
    if (cur - qconf->tx_tsc > 1000) {{
        rte_eth_tx_burst(1, 0, qconf->tx, qconf->n);
        qconf->n = 0;
        qconf->tx_tsc = cur;
    }}
    // Every fourth packet is sampled elsewhere: the count steers the packet.
    port_stats[{slot}].rx += 1;
    if (port_stats[{slot}].rx == 4) {{ port_stats[{slot}].rx = 0; return; }}
    qconf->tx[qconf->n++ & 31] = m;
}}"
        ))
    };
    let per_core = nf("lcore_id");
    assert!(!per_core.stateful, "{per_core:?}");
    assert!(per_core.splittable(), "{per_core:?}");
    let shared = nf("0");
    assert!(!shared.splittable(), "{shared:?}");
}

#[test]
fn a_header_pointer_filled_through_an_out_parameter_reads_its_members() {
    // nDPI style: a parsing helper hands the TCP header back through a
    // `struct tcphdr **` and reads the ports through it. Dereferencing the
    // out-parameter yields the header pointer (not the first bytes of the
    // header), so each member is its own field.
    let nf = |sport_member: &str| {
        facts(&format!(
            r#"#include <stdint.h>
{IPHDR}
struct tcphdr {{ uint16_t source; uint16_t dest; uint32_t seq; }};
struct flow {{ uint32_t src_ip, dst_ip; uint16_t src_port, dst_port; uint8_t protocol; uint32_t pkts; }};
static struct flow table[1024];
static void get_ports(const struct iphdr *iph, const uint8_t *l4, struct tcphdr **tcph, uint16_t *sport, uint16_t *dport) {{
    if (iph->protocol == 6) {{
        *tcph = (struct tcphdr *)l4;
        *sport = (*tcph)->{sport_member}, *dport = (*tcph)->dest;
    }} else {{
        *sport = *dport = 0;
    }}
}}
void process(const uint8_t *pkt, uint32_t len) {{
    const struct iphdr *iph = (const struct iphdr *)(pkt + 14);
    uint16_t sport, dport;
    struct tcphdr *th;
    struct flow f;
    get_ports(iph, pkt + 34, &th, &sport, &dport);
    f.protocol = iph->protocol;
    f.src_ip = iph->saddr, f.dst_ip = iph->daddr;
    f.src_port = sport, f.dst_port = dport;
    uint32_t h = (f.protocol + f.src_ip + f.dst_ip + f.src_port + f.dst_port) % 1024;
    table[h].pkts++;
}}"#
        ))
    };
    let key = |f: &Facts| f.flow_key.iter().map(|k| k.to_string()).collect::<Vec<_>>();
    let ports = nf("source");
    assert_eq!(
        key(&ports),
        ["src_ip", "dst_ip", "src_port", "dst_port", "proto"],
        "{ports:?}"
    );
    // The sequence number in the source port's slot is no source port.
    let seq = nf("seq");
    assert_eq!(
        key(&seq),
        ["src_ip", "dst_ip", "dst_port", "proto"],
        "{seq:?}"
    );
}

#[test]
fn a_key_taken_from_either_endpoint_by_branch_has_no_common_field() {
    // nDPI's certificate cache style: entries are the server's endpoint,
    // added from the source fields of server packets and looked up from
    // the destination fields of client packets (an if/else picks the side).
    // Every path locates the entry by packet fields, but none is common to
    // them all: the cache has no flow key (one server, many clients), not
    // the key of the insert alone.
    let nf = |client_side: &str| {
        facts(&format!(
            r#"#include <stdint.h>
{IPHDR}
struct tcphdr {{ uint16_t source; uint16_t dest; uint32_t seq; }};
struct lru;
int lru_find(struct lru *c, uint32_t key);
void lru_add(struct lru *c, uint32_t key, uint16_t value);
struct module {{ struct lru *server_cache; }};
static struct module mod;
int process(const uint8_t *pkt, uint32_t len, int from_client) {{
    const struct iphdr *iph = (const struct iphdr *)(pkt + 14);
    const struct tcphdr *th = (const struct tcphdr *)(pkt + 34);
    uint32_t key;
    int proto;
    if (from_client)
        key = {client_side};
    else
        key = iph->saddr + th->source;
    proto = lru_find(mod.server_cache, key);
    if (proto)
        return proto;
    if (len > 100 && th->source == 443)
        lru_add(mod.server_cache, iph->saddr + th->source, 7);
    return 0;
}}"#
        ))
    };
    let key = |f: &Facts| f.flow_key.iter().map(|k| k.to_string()).collect::<Vec<_>>();
    let either = nf("iph->daddr + th->dest");
    assert!(either.stateful, "{either:?}");
    assert!(key(&either).is_empty(), "{either:?}");
    assert!(
        either.unknown.is_empty(),
        "decided, not unknown: {either:?}"
    );
    // Look-alike: both branches take the source endpoint.
    let same = nf("iph->saddr + th->source + 1");
    assert_eq!(key(&same), ["src_ip", "src_port"], "{same:?}");
}

#[test]
fn a_member_written_through_a_pointer_handed_back_for_the_packet_is_state() {
    // A netfilter module built out of tree: the kernel's internal headers
    // are not there, so `struct nf_conn` has no layout and the accessor
    // no body. The pointer it hands back for the packet reaches the
    // connection's entry, and writing its mark is per-flow state of a key
    // the code does not show: stateful, with the key unknown, never
    // "stateless". (The accessor is one with no documented contract:
    // `nf_ct_get`, which this fixture used first, has one since the
    // fifteenth session, see `contracts.rs` and
    // `the_conntrack_entry_of_the_packet_is_per_connection_state_keyed_by_its_tuple`.)
    let nf = |ty: &str| {
        facts(&format!(
            r#"#include <stdint.h>
{IPHDR}
struct tcphdr {{ uint16_t source; uint16_t dest; uint32_t seq; uint16_t flags; uint16_t window; uint16_t check; }};
struct sk_buff;
struct cache_line {{ uint32_t mark; }};
const struct iphdr *ip_hdr(const struct sk_buff *skb);
void *ct_of_skb(const struct sk_buff *skb, int *info);
void *skb_header_pointer(const struct sk_buff *skb, int off, int len, void *buf);
int scan_mt(const struct sk_buff *skb) {{
    int info;
    struct tcphdr buf;
    struct tcphdr *th = skb_header_pointer(skb, 20, sizeof(buf), &buf);
    {ty} *ct = ct_of_skb(skb, &info);
    if (th == 0 || ct == 0)
        return 0;
    th->check = 0;
    ct->mark = (ct->mark & ~7u) | (th->flags & 7u);
    return ct->mark == 3;
}}"#
        ))
    };
    let conn = nf("struct nf_conn");
    assert!(conn.stateful, "{conn:?}");
    assert!(
        conn.unknown.iter().any(|u| u.question == Question::FlowKey),
        "the key is the framework's: {conn:?}"
    );
    // Look-alike: a struct the code defines is judged by what the analysis
    // sees of it (nothing keys it here), and the header rewrite through
    // `th` stays a packet write.
    let defined = nf("struct cache_line");
    assert!(!defined.stateful, "{defined:?}");
    assert!(defined.unknown.is_empty(), "{defined:?}");
}

#[test]
fn a_member_name_handed_to_an_unknown_macro_is_no_state() {
    // `list_entry(free_list.next, struct entry, list)` and
    // `list_for_each_entry(e, head, glist)` from a header that was not
    // found: `list` and `glist` name link members of `struct entry`, not
    // storage. Before, a bare name matching any struct's member resolved to
    // state (as a member of a class would in a method), keyed by whatever
    // the call was handed.
    let f = facts(
        r#"#include <stdint.h>
struct iphdr { uint8_t ihl; uint8_t tos; uint16_t tot_len; uint16_t id; uint16_t frag_off; uint8_t ttl; uint8_t protocol; uint16_t check; uint32_t saddr; uint32_t daddr; };
struct list_head { struct list_head *next, *prev; };
struct entry {
	struct list_head list, glist;
	__be32 addr;
	unsigned long stamp;
};
struct sk_buff;
const struct iphdr *ip_hdr(const struct sk_buff *skb);
static struct list_head heads[256];
static struct list_head free_list;
static struct entry *lookup(uint32_t addr) {
    struct entry *e;
    list_for_each_entry(e, &heads[addr & 255], glist)
        if (e->addr == addr)
            return e;
    return 0;
}
unsigned int tg(struct sk_buff *skb) {
    uint32_t daddr = ip_hdr(skb)->daddr;
    struct entry *e = lookup(daddr);
    if (e) {
        e->stamp = daddr;
        return 1;
    }
    e = list_entry(free_list.next, struct entry, list);
    e->addr = daddr;
    list_add_tail(&e->glist, &heads[daddr & 255]);
    return 0;
}"#,
    );
    let names: Vec<&str> = f.state_objects.iter().map(|o| o.name.as_str()).collect();
    assert!(
        names.iter().all(|n| *n != "list" && *n != "glist"),
        "{names:?}"
    );
    assert!(names.contains(&"heads"), "{names:?}");
}

#[test]
fn a_macro_that_calls_its_own_name_is_that_call() {
    // A compatibility shim (`#define f(a, b, c) f((a), (c))`) drops an
    // argument and calls the function of the same name, which C does not
    // expand again: it is a call of a function with no visible body, not a
    // macro whose expansion the analysis cannot see. A reply crafted from
    // the packet alone keeps the NF stateless.
    let f = facts(
        r#"#include <stdint.h>
struct iphdr { uint8_t ihl; uint8_t tos; uint16_t tot_len; uint16_t id; uint16_t frag_off; uint8_t ttl; uint8_t protocol; uint16_t check; uint32_t saddr; uint32_t daddr; };
struct sk_buff;
struct iphdr *ip_hdr(const struct sk_buff *skb);
struct sk_buff *skb_copy(const struct sk_buff *skb);
int route_me_harder(void *net, struct sk_buff *skb, int type);
#define route_me_harder(xnet, xsk, xskb, xtype) route_me_harder((xnet), (xskb), (xtype))
void send_reply(struct sk_buff *skb);
unsigned int reply_tg(struct sk_buff *skb, void *net, void *sk) {
    struct sk_buff *nskb = skb_copy(skb);
    struct iphdr *niph = ip_hdr(nskb);
    uint32_t tmp = niph->saddr;
    niph->saddr = niph->daddr;
    niph->daddr = tmp;
    if (route_me_harder(net, sk, nskb, 2) != 0)
        return 0;
    send_reply(nskb);
    return 1;
}"#,
    );
    assert!(!f.stateful, "{f:?}");
    assert!(f.unknown.is_empty(), "{f:?}");
}

#[test]
fn a_helper_that_reports_whether_it_found_the_packets_value_guards_like_a_lookup() {
    // xt_psd style: `if (in_list(host, port)) return;` before recording a
    // new port in the host's entry. The helper searches the entry it is
    // handed for the packet's port and returns 1 only on a match inside its
    // loop, 0 otherwise: a membership test, so the writes after the early
    // return happen once per new value (per flow), not on every packet.
    let nf = |search: &str| {
        facts(&format!(
            r#"#include <stdint.h>
{IPHDR}
struct tcphdr {{ uint16_t source; uint16_t dest; uint32_t seq; }};
struct host {{ struct host *next; uint32_t saddr; unsigned long ts; int count; uint16_t ports[8]; }};
static struct {{ struct host list[64]; struct host *hash[16]; int index; }} state;
const struct iphdr *ip_hdr(const void *skb);
const struct tcphdr *tcp_hdr(const void *skb);
static struct host *host_get_next(struct host *h, struct host **last) {{
    if (h->next != 0)
        *last = h;
    return h->next;
}}
static int in_list(struct host *host, uint16_t port) {{
    int i;
{search}
}}
int match(const void *skb) {{
    const struct iphdr *iph = ip_hdr(skb);
    const struct tcphdr *th = tcp_hdr(skb);
    struct host *curr, *last = 0, **head;
    head = &state.hash[iph->saddr & 15];
    curr = *head;
    while (curr != 0) {{
        if (curr->saddr == iph->saddr)
            break;
        curr = host_get_next(curr, &last);
    }}
    if (curr != 0) {{
        if (in_list(curr, th->dest))
            return 0;
        curr->ts = 1;
        if (curr->count < 8)
            curr->ports[curr->count++] = th->dest;
        return 1;
    }}
    curr = &state.list[state.index++ & 63];
    curr->saddr = iph->saddr;
    curr->next = *head;
    *head = curr;
    return 0;
}}"#
        ))
    };
    let found = nf(
        "    for (i = 0; i < host->count; ++i)\n        if (host->ports[i] == port)\n            return 1;\n    return 0;",
    );
    assert_eq!(
        found.intensity,
        nfc_core::facts::Intensity::PerFlow,
        "{found:?}"
    );
    let key: Vec<String> = found.flow_key.iter().map(|k| k.to_string()).collect();
    assert_eq!(key, ["src_ip"], "{found:?}");
    // Look-alike: a helper that answers from a count, not from a search
    // for the packet's value, tells no hit from a miss.
    let count = nf("    (void)i;\n    return host->count > 0 && port != 0;");
    assert_eq!(
        count.intensity,
        nfc_core::facts::Intensity::PerPacket,
        "{count:?}"
    );
}

#[test]
fn a_helper_whose_result_is_an_ageing_test_guards_like_that_test() {
    // xt_psd style: a hit on a live entry returns early through a predicate
    // helper (`entry_is_recent(h, now)` returns `now - h->ts <= limit`);
    // only an aged entry falls through, to be replaced with the new
    // source's. The writes after the lookup happen on a miss or on ageing:
    // once per new source, not on every packet.
    let nf = |operand: &str| {
        facts(&format!(
            r#"#include <stdint.h>
{IPHDR}
struct host {{ struct host *next; uint32_t saddr; unsigned long ts; unsigned long hits; }};
static struct {{ struct host list[64]; struct host *hash[16]; int index; }} state;
const struct iphdr *ip_hdr(const void *skb);
static int entry_is_recent(const struct host *h, unsigned long now, unsigned long since) {{
    return now - {operand} <= 100;
}}
int match(const void *skb, unsigned long now) {{
    const struct iphdr *iph = ip_hdr(skb);
    struct host *curr, **head;
    head = &state.hash[iph->saddr & 15];
    curr = *head;
    while (curr != 0) {{
        if (curr->saddr == iph->saddr)
            break;
        curr = curr->next;
    }}
    if (curr != 0) {{
        if (entry_is_recent(curr, now, 0))
            return curr->hits > 10;
        curr->saddr = 0;
    }}
    curr = &state.list[state.index++ & 63];
    curr->saddr = iph->saddr;
    curr->ts = now;
    curr->next = *head;
    *head = curr;
    return 0;
}}"#
        ))
    };
    let aged = nf("h->ts");
    assert_eq!(
        aged.intensity,
        nfc_core::facts::Intensity::PerFlow,
        "{aged:?}"
    );
    // Look-alike: the helper compares with a value the caller passes, not
    // with a timestamp kept in the entry: no ageing test, and the entry
    // written after it is written on every packet that reaches it.
    let not_ageing = nf("since");
    assert_eq!(
        not_ageing.intensity,
        nfc_core::facts::Intensity::PerPacket,
        "{not_ageing:?}"
    );
}

/// Out-of-tree kernel code (a netfilter target) whose bindings hang off
/// per-namespace storage (`net_generic(net, id)`) in kernel lists. The
/// kernel's headers are not there: `<linux/…>` includes bring nfc's model
/// of the kernel lists, and `body` is the per-packet use of what the
/// namespace accessor hands back.
fn kernel_target(body: &str) -> Facts {
    facts(&format!(
        r#"#include <linux/module.h>
#include <linux/netfilter/x_tables.h>
#include <stdint.h>
{IPHDR}
struct sk_buff;
struct net;
struct xt_action_param {{ const void *targinfo; struct net *net; }};
const struct iphdr *ip_hdr(const struct sk_buff *skb);
void *net_generic(const struct net *net, unsigned int id);
void *kmalloc(unsigned long size, unsigned int flags);
static unsigned int binding_net_id;
struct binding {{ struct list_head list; uint32_t addr; uint32_t mapped; unsigned long hits; }};
struct binding_net {{ struct list_head *hash; uint32_t last; }};
static inline struct binding_net *binding_pernet(struct net *net)
{{
	return net_generic(net, binding_net_id);
}}
static struct binding *binding_lookup(struct binding_net *bn, uint32_t addr)
{{
	struct binding *e;
	list_for_each_entry(e, &bn->hash[addr & 255], list)
		if (e->addr == addr)
			return e;
	return 0;
}}
unsigned int binding_tg(struct sk_buff *skb, const struct xt_action_param *par)
{{
	struct binding_net *bn = binding_pernet(par->net);
	uint32_t saddr = ip_hdr(skb)->saddr;
{body}
}}"#
    ))
}

#[test]
fn storage_handed_back_for_a_handle_and_searched_by_packet_data_is_state() {
    // xt_DNETMAP style: the table is found in per-namespace storage that
    // unseen code hands back, walked as a kernel list and searched for the
    // packet's source address; a hit is written. Without the list model
    // the walk was an unknown lookup ("unknown"); with the model but
    // without this rule the table was nobody's state ("stateless").
    let f = kernel_target(
        "	struct binding *e = binding_lookup(bn, saddr);
	if (e == 0)
		return 0;
	e->hits = e->hits + 1;
	return e->mapped;",
    );
    assert!(f.stateful, "{f:?}");
    assert_eq!(f.flow_key, vec![nfc_core::facts::Field::SrcIp], "{f:?}");
    assert!(f.pointer_chasing, "{f:?}");
    // Look-alikes. The same handed-back storage used as a scratch cell
    // (written with packet data and read back, never walked or searched):
    // nothing says it persists, so no state.
    let scratch = kernel_target(
        "	bn->last = saddr;
	return bn->last & 1;",
    );
    assert!(!scratch.stateful, "{scratch:?}");
    assert!(scratch.unknown.is_empty(), "{scratch:?}");
    // Fresh storage from an allocator given only a size and flags, used
    // and dropped: no state either.
    let fresh = kernel_target(
        "	struct binding *n = kmalloc(sizeof(*n), 0);
	n->addr = saddr;
	return n->addr & 1;",
    );
    assert!(!fresh.stateful, "{fresh:?}");
}

/// An xtables match whose rule data (`par->matchinfo`) the body uses.
fn kernel_match(rule: &str, body: &str) -> Facts {
    facts(&format!(
        r#"#include <stdint.h>
{IPHDR}
struct sk_buff {{ unsigned int len; }};
struct xt_action_param {{ const void *matchinfo; unsigned int thoff; int hotdrop; }};
const struct iphdr *ip_hdr(const struct sk_buff *skb);
{rule}
static int rule_mt(const struct sk_buff *skb, struct xt_action_param *par)
{{
	struct rule_info *info = (void *)par->matchinfo;
	uint32_t saddr = ip_hdr(skb)->saddr;
{body}
}}"#
    ))
}

#[test]
fn a_rules_private_data_is_per_rule_storage_not_per_flow_state() {
    // xt_quota2 / xt_fuzzy style: the kernel hands each call the rule's
    // private data (`matchinfo`), one block per rule shared by every
    // packet the rule sees. A counter in it, updated per packet and
    // deciding the verdict, is an aggregate like a global counter: not
    // per-flow state, and not splittable. As a handed object of unknown
    // provenance it used to be "per-flow state with an unknown key".
    let f = kernel_match(
        "struct rule_info { uint64_t quota; };",
        "	(void)saddr;
	if (info->quota <= skb->len) {
		par->hotdrop = 1;
		return 0;
	}
	info->quota -= skb->len;
	return 1;",
    );
    assert!(!f.stateful, "{f:?}");
    assert!(f.unknown.is_empty(), "{:?}", f.unknown);
    assert!(!f.splittable(), "{f:?}");
    // Look-alike: the rule's data holds a table the packet's source
    // address indexes; its entries are per-flow state keyed by it.
    let t = kernel_match(
        "struct rule_info { uint64_t hits[256]; };",
        "	info->hits[saddr & 255] += 1;
	return info->hits[saddr & 255] > 10;",
    );
    assert!(t.stateful, "{t:?}");
    assert_eq!(t.flow_key, vec![nfc_core::facts::Field::SrcIp], "{t:?}");
}

#[test]
fn what_a_receive_loop_does_before_its_loop_is_set_up_not_the_packet_path() {
    // DPDK flow_classify style: the lcore function deletes a rule and
    // checks the ports once, then loops receiving bursts and reads the
    // rules. The deletion runs when the core starts, not per packet: the
    // rule table is configuration, and nothing written per packet stops
    // the NF from running on several cores.
    let f = facts(&format!(
        r#"{MBUF}
static int rules[8];
static void rule_delete(int i) {{ rules[i] = 0; }}
static void lcore_main(void)
{{
	rule_delete(7);
	for (;;) {{
		struct rte_mbuf *bufs[32];
		uint16_t n = rte_eth_rx_burst(0, 0, bufs, 32);
		for (uint16_t i = 0; i < n; i++) {{
			struct rte_ether_hdr *eth = rte_pktmbuf_mtod(bufs[i], struct rte_ether_hdr *);
			if (rules[eth->dst_addr.addr_bytes[5] & 7])
				rte_eth_tx_burst(1, 0, &bufs[i], 1);
		}}
	}}
}}"#
    ));
    assert!(!f.stateful, "{f:?}");
    assert!(f.split_hazards.is_empty(), "{:?}", f.split_hazards);
    assert!(f.splittable(), "{f:?}");
}

#[test]
fn a_header_pointer_returned_by_unseen_code_given_the_packet_points_at_that_header() {
    // Out-of-tree kernel code: `ipv6_hdr(skb)` is declared in a header that
    // is not there, so its body and prototype are unknown. Its result,
    // held as `const struct ipv6hdr *`, is that header of the packet: the
    // table searched for the packet's source address is keyed by it.
    // Before, the result was packet data of no nameable field, the search
    // matched nothing and the NF came out "stateless" (unsafe).
    let f = facts(
        r#"#include <linux/ipv6.h>
#include <net/ipv6.h>
struct host { struct host *next; struct in6_addr saddr; unsigned long seen; };
static struct host *buckets[256];
static unsigned int bucket_of(const struct in6_addr *a) { return a->s6_addr[15]; }
static int known(const struct sk_buff *skb)
{
	const struct ipv6hdr *ip6h = ipv6_hdr(skb);
	struct host *h = buckets[bucket_of(&ip6h->saddr)];
	while (h != NULL) {
		if (ipv6_addr_equal(&h->saddr, &ip6h->saddr))
			break;
		h = h->next;
	}
	if (h == NULL)
		return 0;
	h->seen++;
	return 1;
}"#,
    );
    assert!(f.stateful, "{f:?}");
    assert_eq!(f.flow_key, vec![nfc_core::facts::Field::SrcIp], "{f:?}");
}

/// A psd-style table: hosts chained under a hash of the source address,
/// found by a search through a container cast of the cursor, with a list
/// of the destinations each probed; a new host takes the slot a shared
/// cursor hands out.
const HOST_TABLE: &str = r#"
struct host { struct host *next; unsigned int count; unsigned int dests[8]; };
struct host4 { struct host host; unsigned int saddr; };
static struct { struct host4 list[64]; struct host *hash[256]; unsigned int index; } state;
static struct host4 *to_host4(struct host *h) { return (struct host4 *)h; }
static int dest_seen(struct host *h, unsigned int daddr)
{
	for (unsigned int i = 0; i < h->count; i++)
		if (h->dests[i] == daddr)
			return 1;
	return 0;
}
static int scan(const struct iphdr *iph)
{
	struct host **head = &state.hash[iph->saddr & 255];
	struct host *curr = *head;
	struct host4 *curr4;
	while (curr != NULL) {
		curr4 = to_host4(curr);
		if (curr4->saddr == iph->saddr)
			break;
		curr = curr->next;
	}
	if (curr != NULL) {
		if (dest_seen(curr, iph->daddr))
			return 0;
		if (curr->count < 8)
			curr->dests[curr->count++] = iph->daddr;
		return curr->count > 4;
	}
	curr4 = &state.list[state.index++];
	if (state.index >= 64)
		state.index = 0;
	curr = &curr4->host;
	curr->next = *head;
	*head = curr;
	curr4->saddr = iph->saddr;
	curr->count = 1;
	curr->dests[0] = iph->daddr;
	return 0;
}
"#;

#[test]
fn new_entries_at_slots_a_shared_cursor_hands_out_are_not_splittable() {
    // The same table: a new host takes `state.list[state.index++]`, and
    // the cursor wraps, so the slot recycles whichever host held it. Which slot a source gets, and whose
    // entry it recycles, depends on every source's arrivals, so per-core
    // copies would behave differently, although each entry is found again
    // by the source address (its key stays the source address).
    let f = facts(&format!(
        "#include <stdint.h>\n{IPHDR}\nstruct sk_buff;\nconst struct iphdr *ip_hdr(const struct sk_buff *skb);\n{HOST_TABLE}\nint psd_mt(const struct sk_buff *skb) {{ return scan(ip_hdr(skb)); }}"
    ));
    assert_eq!(f.flow_key, vec![nfc_core::facts::Field::SrcIp], "{f:?}");
    assert!(!f.splittable(), "{f:?}");
    assert!(
        f.split_hazards
            .iter()
            .any(|h| h.reason.contains("shared cursor")),
        "{:?}",
        f.split_hazards
    );
    // Look-alike: a bump allocator (the cursor only grows, and a full pool
    // takes no new host) hands each slot out once; per-core copies change
    // the capacity, not whose entry is replaced.
    let bump = HOST_TABLE.replace(
        "\tcurr4 = &state.list[state.index++];\n\tif (state.index >= 64)\n\t\tstate.index = 0;",
        "\tif (state.index >= 64)\n\t\treturn 0;\n\tcurr4 = &state.list[state.index++];",
    );
    assert_ne!(bump, HOST_TABLE);
    let b = facts(&format!(
        "#include <stdint.h>\n{IPHDR}\nstruct sk_buff;\nconst struct iphdr *ip_hdr(const struct sk_buff *skb);\n{bump}\nint psd_mt(const struct sk_buff *skb) {{ return scan(ip_hdr(skb)); }}"
    ));
    assert!(
        !b.split_hazards
            .iter()
            .any(|h| h.reason.contains("shared cursor")),
        "{:?}",
        b.split_hazards
    );
}

/// An xtables match in kernel style that reads the packet's conntrack
/// entry with `get` and then runs `body`. As for out-of-tree modules
/// analysed here, the kernel header that declares `nf_ct_get` and lays out
/// `struct nf_conn` is missing. The match is TCP-only: the NF's own
/// code narrows the traffic it sees, not what the kernel keys by.
fn conntrack_match(get: &str, body: &str) -> Facts {
    facts(&format!(
        r#"#include <stdint.h>
#include <net/netfilter/nf_conntrack.h>
{IPHDR}
struct sk_buff {{ unsigned int len; }};
struct xt_action_param {{ const void *matchinfo; unsigned int thoff; int hotdrop; }};
enum ip_conntrack_info {{ IP_CT_ESTABLISHED, IP_CT_RELATED, IP_CT_NEW }};
const struct iphdr *ip_hdr(const struct sk_buff *skb);
static int ct_mt(const struct sk_buff *skb, struct xt_action_param *par)
{{
	enum ip_conntrack_info ctinfo;
	const struct iphdr *iph = ip_hdr(skb);
	struct nf_conn *ct;
	if (iph->protocol != 6)
		return 0;
	ct = {get}(skb, &ctinfo);
	if (ct == NULL)
		return 0;
{body}
}}"#
    ))
}

#[test]
fn the_conntrack_entry_of_the_packet_is_per_connection_state_keyed_by_its_tuple() {
    // xt_lscan style: the scan state lives in the mark of the packet's
    // conntrack entry. By nf_ct_get's contract (contracts.rs) that entry
    // is the kernel's, one per connection tuple and the same for both
    // directions, reached without a lookup. Before, the result was storage
    // handed back by unseen code and the key was unknown.
    use nfc_core::facts::{Field, Intensity};
    let f = conntrack_match(
        "nf_ct_get",
        "	ct->mark = (ct->mark & ~0xfu) | (ctinfo == IP_CT_NEW ? 1 : 2);
	return ct->mark == 3;",
    );
    assert!(f.stateful, "{f:?}");
    assert!(f.unknown.is_empty(), "{:?}", f.unknown);
    assert_eq!(f.flow_key, Field::FIVE_TUPLE, "{f:?}");
    assert!(f.symmetric, "{f:?}");
    assert!(!f.pointer_chasing, "{f:?}");
    assert_eq!(f.intensity, Intensity::PerPacket, "{f:?}");
    assert!(f.splittable(), "{f:?}");
    // Look-alike: the entry only read in a condition is not written by
    // the NF (the kernel keeps it): read-only.
    let r = conntrack_match("nf_ct_get", "	return (ct->status & 8) != 0;");
    assert!(r.stateful, "{r:?}");
    assert!(r.unknown.is_empty(), "{:?}", r.unknown);
    assert_eq!(r.intensity, Intensity::ReadOnly, "{r:?}");
    assert!(r.splittable(), "{r:?}");
    // Look-alike: an unknown function of the same shape has no contract;
    // what it hands back is located by nothing the code shows.
    let u = conntrack_match(
        "conn_of",
        "	ct->mark = (ct->mark & ~0xfu) | (ctinfo == IP_CT_NEW ? 1 : 2);
	return ct->mark == 3;",
    );
    assert!(u.flow_key.is_empty(), "{u:?}");
    assert!(
        u.is_unknown(Question::FlowKey) || u.is_unknown(Question::Stateful),
        "{u:?}"
    );
    assert!(!u.splittable(), "{u:?}");
}

/// An XDP program in xdp-forward's style that fills a fib tuple (`fill`),
/// looks it up with `lookup` and then runs `use_`.
fn flowtable_prog(lookup: &str, fill: &str, use_: &str) -> Facts {
    facts(&format!(
        r#"{XDP}
struct ethhdr {{ unsigned char h_dest[6]; unsigned char h_source[6]; __u16 h_proto; }};
struct bpf_fib_lookup {{ unsigned char family, l4_protocol; __u16 sport, dport; __u32 ipv4_src, ipv4_dst; __u32 ifindex; unsigned char smac[6], dmac[6]; }};
struct bpf_flowtable_opts {{ int error; }};
struct flow_offload_tuple_rhash {{ __u32 dir; __u32 nat_ip; }};
struct flow_offload_tuple_rhash *{lookup}(struct xdp_md *, struct bpf_fib_lookup *, struct bpf_flowtable_opts *, __u32);
SEC("xdp")
int prog(struct xdp_md *ctx) {{
    void *data_end = (void *)(long)ctx->data_end;
    void *data = (void *)(long)ctx->data;
    struct ethhdr *eth = data;
    struct iphdr *ip = data + 14;
    struct tcphdr *tcp = data + 34;
    struct bpf_fib_lookup tuple = {{ .ifindex = ctx->ingress_ifindex }};
    struct bpf_flowtable_opts opts = {{}};
    if ((void *)(tcp + 1) > data_end) return 2;
{fill}
    struct flow_offload_tuple_rhash *th = {lookup}(ctx, &tuple, &opts, sizeof(opts));
    if (!th) return 2;
{use_}
    return th->dir ? 3 : 1;
}}"#
    ))
}

const FIB_TUPLE_FROM_PACKET: &str = "    tuple.l4_protocol = ip->protocol;
    tuple.ipv4_src = ip->saddr; tuple.ipv4_dst = ip->daddr;
    tuple.sport = tcp->source; tuple.dport = tcp->dest;
    __builtin_memcpy(tuple.smac, eth->h_source, 6);";

#[test]
fn a_flowtable_lookup_is_keyed_by_the_packet_fields_the_code_puts_in_its_tuple() {
    // xdp-forward's flowtable mode: the kfunc bpf_xdp_flow_lookup looks the
    // tuple up in the kernel's netfilter flowtable (contracts.rs): per-flow
    // state the kernel keeps, keyed by what the code wrote into the tuple
    // (the MAC it also copies there is no part of the kernel's key), both
    // directions in one flow, a chained hash. The program only reads the
    // entry. Before, "stateful" was unknown (a table outside the code).
    use nfc_core::facts::{Field, Intensity};
    let f = flowtable_prog(
        "bpf_xdp_flow_lookup",
        FIB_TUPLE_FROM_PACKET,
        "    ip->daddr = th->nat_ip;",
    );
    assert!(f.stateful, "{f:?}");
    assert!(f.unknown.is_empty(), "{:?}", f.unknown);
    assert_eq!(f.flow_key, Field::FIVE_TUPLE, "{f:?}");
    assert_eq!(f.intensity, Intensity::ReadOnly, "{f:?}");
    assert!(f.pointer_chasing, "{f:?}");
    assert!(f.symmetric, "{f:?}");
    assert!(f.splittable(), "{f:?}");
    // Stored through the returned pointer: the NF writes the entry.
    let w = flowtable_prog(
        "bpf_xdp_flow_lookup",
        FIB_TUPLE_FROM_PACKET,
        "    th->nat_ip = ip->saddr;",
    );
    assert_eq!(w.intensity, Intensity::PerPacket, "{w:?}");
    assert_eq!(w.flow_key, Field::FIVE_TUPLE, "{w:?}");
    // Look-alike: a tuple filled from constants (no packet field): the
    // entry is the kernel's, but nothing the code shows says which one.
    let c = flowtable_prog(
        "bpf_xdp_flow_lookup",
        "    tuple.l4_protocol = 6; tuple.ipv4_src = 0x0a000001; tuple.ipv4_dst = 0x0a000002;",
        "    ip->daddr = th->nat_ip;",
    );
    assert!(c.is_unknown(Question::FlowKey), "{c:?}");
    assert!(c.flow_key.is_empty(), "{c:?}");
    assert!(!c.splittable(), "{c:?}");
    // Look-alike: the same shape under a name with no contract stays a
    // lookup in a table outside the code: "stateful" is unknown.
    let u = flowtable_prog(
        "xdp_flow_find",
        FIB_TUPLE_FROM_PACKET,
        "    ip->daddr = th->nat_ip;",
    );
    assert!(u.is_unknown(Question::Stateful), "{u:?}");
    assert!(!u.splittable(), "{u:?}");
}

/// A connection entry the caller hands in, updated by a per-packet flag
/// the caller also hands in; `select` is the subscript of the entry's
/// two-element member for the sender (`SND`) and the receiver (`RCV`).
fn halves(snd: &str, rcv: &str) -> Facts {
    facts(&format!(
        r#"#include <stdint.h>
#include <stdbool.h>
struct dp_packet {{ void *base; uint16_t l4_ofs; }};
struct tcp_header {{ uint16_t src; uint16_t dst; uint32_t seq; uint32_t ack; uint16_t ctl; uint16_t winsz; }};
struct half {{ uint32_t seqhi; uint16_t win; uint8_t state; }};
struct session {{ struct half side[2]; uint8_t turn; long long expires; }};
static struct tcp_header *l4(struct dp_packet *p) {{ return (struct tcp_header *)((char *)p->base + p->l4_ofs); }}
int session_update(struct session *s, struct dp_packet *pkt, bool reply, long long now) {{
    struct tcp_header *tcp = l4(pkt);
    struct half *snd = &s->side[{snd}];
    struct half *rcv = &s->side[{rcv}];
    if (tcp->seq < snd->seqhi || rcv->state > 2) return 1;
    snd->seqhi = tcp->seq;
    snd->win = tcp->winsz;
    s->expires = now + 30;
    return 0;
}}"#
    ))
}

#[test]
fn an_entry_with_one_half_per_direction_is_reached_from_both_directions() {
    // The sender's half by the direction flag, the receiver's by its
    // complement: one entry serves both directions of the connection.
    for (snd, rcv) in [("reply ? 1 : 0", "reply ? 0 : 1"), ("reply", "!reply")] {
        let f = halves(snd, rcv);
        assert!(f.stateful, "{f:?}");
        assert!(
            f.symmetric && !f.is_unknown(Question::Symmetric),
            "{snd}: {f:?}"
        );
        assert!(
            f.evidence.iter().any(|e| e.question == Question::Symmetric
                && e.reason.contains("one half per direction")),
            "{f:?}"
        );
    }
    // Look-alikes: halves picked by a stored index (a double buffer's turn),
    // by one selector only, or by a TCP flag (packet data that tells no
    // direction: a request and its reply may both carry it) say nothing
    // about directions.
    for (snd, rcv) in [
        ("s->turn", "!s->turn"),
        ("reply ? 1 : 0", "reply ? 1 : 0"),
        ("tcp->ctl & 2 ? 1 : 0", "tcp->ctl & 2 ? 0 : 1"),
    ] {
        let f = halves(snd, rcv);
        assert!(
            !f.symmetric && f.is_unknown(Question::Symmetric),
            "{snd}/{rcv}: {f:?}"
        );
    }
}

#[test]
fn one_endpoint_chosen_by_a_test_on_the_packets_direction_is_reached_from_both_directions() {
    // The server's address, whichever way the packet goes: the source when
    // the source port is the service's, the destination otherwise.
    let nf = |alt: &str| {
        facts(&format!(
            r#"#include <stdint.h>
{IPHDR}
struct tcphdr {{ uint16_t source; uint16_t dest; uint32_t seq; uint32_t ack_seq; }};
struct packet_info {{ const struct iphdr *iph; const struct tcphdr *tcp; }};
struct seen_cache {{ uint32_t addr[256]; uint64_t hits[256]; }};
static struct seen_cache servers;
static void remember(struct seen_cache *c, uint32_t a) {{ c->addr[a & 255] = a; c->hits[a & 255]++; }}
void inspect_packet(struct packet_info *packet) {{
    if (packet->tcp->source == 8080)
        remember(&servers, packet->iph->saddr);
    else
        remember(&servers, packet->iph->{alt});
}}"#
        ))
    };
    let f = nf("daddr");
    assert!(f.stateful, "{f:?}");
    assert!(f.symmetric, "{f:?}");
    assert!(
        f.evidence.iter().any(|e| e.question == Question::Symmetric
            && e.reason.contains("one endpoint chosen by a test")),
        "{f:?}"
    );
    // Look-alike: the same address in both branches is one direction's.
    let f = nf("saddr");
    assert!(!f.symmetric, "{f:?}");
}

/// A fragment table in the style of a chained hash map with an iterator
/// macro: the bucket hash mixes the two addresses (direction-agnostic),
/// `matcher` is the body of the key comparison the lookup loop stops on.
fn bucket_table(matcher: &str, lookup: &str) -> Facts {
    facts(&format!(
        r#"{MBUF}{IPV4}
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <stdlib.h>
struct list_key {{ uint32_t src_addr; uint32_t dst_addr; uint8_t proto; }};
struct node {{ struct node *next; uint32_t hash; }};
struct frag_list {{ struct node node; struct list_key key; uint32_t nfrags; }};
struct table {{ struct node *buckets[1024]; }};
static struct table frags;
#define CONTAINER(POINTER, OBJECT, MEMBER) ((void *) ((char *) (POINTER) - offsetof(struct frag_list, MEMBER)))
#define ITER_VAR(NAME) NAME ## __iterator__
#define INIT_ITER_EXP(VAR, POINTER, ITER_TYPE, ...) ITER_TYPE *ITER_VAR(VAR) = ( __VA_ARGS__ , (ITER_TYPE *) POINTER)
#define INIT_ITER(VAR, POINTER, ITER_TYPE) INIT_ITER_EXP(VAR, POINTER, ITER_TYPE, (void) 0)
#define FOR_EACH_WITH_HASH(NODE, MEMBER, HASH, T) \
    for (INIT_ITER(NODE, first_with_hash(T, HASH), struct node); \
         (ITER_VAR(NODE) != NULL) ? (((NODE) = CONTAINER(ITER_VAR(NODE), NODE, MEMBER)), 1) : (((NODE) = NULL), 0); \
         ITER_VAR(NODE) = next_with_hash(ITER_VAR(NODE)))
static struct node *next_with_hash(struct node *n, uint32_t hash) {{
    while (n && n->hash != hash) n = n->next;
    return n;
}}
static struct node *first_with_hash(struct table *t, uint32_t hash) {{
    return next_with_hash(t->buckets[hash & 1023], hash);
}}
static uint32_t addr_hash(uint32_t h, uint32_t a) {{ return (h ^ a) * 0x9e3779b1u; }}
static uint32_t key_hash(const struct list_key *k) {{
    uint32_t hs = addr_hash(7, k->src_addr);
    uint32_t hd = addr_hash(7, k->dst_addr);
    return (hs ^ hd) + k->proto;
}}
static bool key_eq(const struct list_key *a, const struct list_key *b) {{
    {matcher}
}}
static struct frag_list *lookup(struct table *t, const struct list_key *k, uint32_t hash) {{
    {lookup}
}}
static void handle(struct rte_mbuf *m) {{
    struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(m, struct rte_ipv4_hdr *);
    struct list_key key;
    key.src_addr = ip->src_addr;
    key.dst_addr = ip->dst_addr;
    key.proto = ip->next_proto_id;
    uint32_t hash = key_hash(&key);
    struct frag_list *l = lookup(&frags, &key, hash);
    if (!l) {{
        l = malloc(sizeof *l);
        l->key = key;
        l->node.hash = hash;
        l->nfrags = 0;
        l->node.next = frags.buckets[hash & 1023];
        frags.buckets[hash & 1023] = &l->node;
    }}
    l->nfrags++;
}}
void main_loop(void) {{
    struct rte_mbuf *pkts[32];
    uint16_t n = rte_eth_rx_burst(0, 0, pkts, 32);
    for (uint16_t i = 0; i < n; i++) handle(pkts[i]);
    rte_eth_tx_burst(1, 0, pkts, n);
}}"#
    ))
}

const LOOP_LOOKUP: &str = "struct frag_list *l;
    FOR_EACH_WITH_HASH (l, node, hash, t) {
        if (key_eq(&l->key, k)) {
            return l;
        }
    }
    return NULL;";

#[test]
fn a_bucket_hash_that_mixes_directions_selects_no_entry_an_ordered_match_does() {
    // The hash puts both directions in one bucket, but the loop stops on the
    // entry whose stored key equals the packet's in order: one entry per
    // direction (not symmetric), through a variadic iterator macro.
    let ordered = "return !memcmp(&a->src_addr, &b->src_addr, sizeof a->src_addr)
        && !memcmp(&a->dst_addr, &b->dst_addr, sizeof a->dst_addr) && a->proto == b->proto;";
    let f = bucket_table(ordered, LOOP_LOOKUP);
    assert!(f.stateful, "{f:?}");
    assert!(!f.symmetric && !f.is_unknown(Question::Symmetric), "{f:?}");
    assert!(
        f.evidence
            .iter()
            .any(|e| e.question == Question::Symmetric
                && e.reason.contains("one entry per direction")),
        "{f:?}"
    );
    // Look-alike: the stored source matched against the packet's
    // destination (a reply finds the request's entry): symmetric.
    let crossed =
        "return a->src_addr == b->dst_addr && a->dst_addr == b->src_addr && a->proto == b->proto;";
    let f = bucket_table(crossed, LOOP_LOOKUP);
    assert!(f.symmetric, "{f:?}");
    // Look-alike: no match at all, the bucket's head is the entry (a
    // direct-mapped table): the mixed hash decides, symmetric.
    let head = "struct node *n = first_with_hash(t, hash);
    return n ? (struct frag_list *) n : NULL;";
    let f = bucket_table(ordered, head);
    assert!(f.symmetric, "{f:?}");
}

/// Per-flow counters of an XDP program that finds the ports right after a
/// 20-byte IPv4 header (`iph + 1`); `guard` is what the block does about
/// IPv4 options.
fn after_ip4(guard: &str) -> Facts {
    facts(&format!(
        r#"{XDP}
struct ipv4_hdr {{ unsigned char ihl:4, version:4; unsigned char tos; __u16 tot_len, id, frag_off; unsigned char ttl, protocol; __u16 check; __u32 saddr, daddr; }};
struct port_pair {{ __u16 source, dest; }};
struct key {{ __u32 src, dst; __u16 sport, dport; }};
struct {{ __uint(type, BPF_MAP_TYPE_HASH); __uint(max_entries, 1024); __type(key, struct key); __type(value, __u64); }} flows SEC(".maps");
SEC("xdp")
int prog(struct xdp_md *ctx) {{
    void *data_end = (void *)(long)ctx->data_end;
    void *data = (void *)(long)ctx->data;
    struct ipv4_hdr *iph = data + 14;
    if ((void *)(iph + 1) > data_end)
        return 2;
    struct port_pair *ports = (struct port_pair *)(iph + 1);
    if ((void *)(ports + 1) > data_end)
        return 2;
    {guard}
    struct key k = {{}};
    k.src = iph->saddr;
    k.dst = iph->daddr;
    k.sport = ports->source;
    k.dport = ports->dest;
    __u64 *n = bpf_map_lookup_elem(&flows, &k);
    if (n) *n += 1;
    return 2;
}}"#
    ))
}

#[test]
fn past_a_guard_that_drops_ipv4_options_the_next_header_follows_the_ip_header() {
    let key = |f: &Facts| f.flow_key.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    for guard in [
        "if (iph->ihl * 4 != sizeof(*iph)) return 2;",
        "if (iph->ihl != 5) return 1;",
        "if (iph->ttl <= 1 || (iph->ihl << 2) > 20) return 2;",
    ] {
        let f = after_ip4(guard);
        assert!(f.stateful, "{guard}: {f:?}");
        assert_eq!(
            key(&f),
            ["src_ip", "dst_ip", "src_port", "dst_port"],
            "{guard}: {f:?}"
        );
    }
    // Look-alikes: no guard, a guard under a further condition, a guard
    // that keeps the packet either way: options may sit where the ports
    // are read, so only the addresses are known.
    for guard in [
        "",
        "if (iph->tos) { if (iph->ihl != 5) return 1; }",
        "if (iph->ihl != 5) iph->ttl--;",
        "if (iph->ihl == 5) return 1;",
    ] {
        let f = after_ip4(guard);
        assert!(f.stateful, "{guard}: {f:?}");
        assert_eq!(key(&f), ["src_ip", "dst_ip"], "{guard}: {f:?}");
    }
}

/// A NAT in the style of a verified-NF library: opaque map, vector and
/// index allocator behind a global pointer to the NF's state block, their
/// bodies not visible. `translate` is how the outbound path picks the
/// external port.
fn opaque_library_nat(translate: &str) -> Facts {
    facts(&format!(
        r#"{IPV4}
#include <string.h>
struct tcpudp_hdr {{ uint16_t src_port; uint16_t dst_port; }};
struct Map; struct Vector; struct DoubleChain;
int map_get(struct Map *map, void *key, int *value_out);
void map_put(struct Map *map, void *key, int value);
void vector_borrow(struct Vector *vector, int index, void **val_out);
int dchain_allocate_new_index(struct DoubleChain *chain, int *index_out, long time);
int dchain_rejuvenate_index(struct DoubleChain *chain, int index, long time);
void nf_borrow_next_chunk(void *p, unsigned length, void **chunk);
struct FlowId {{ uint16_t src_port; uint16_t dst_port; uint32_t src_ip; uint32_t dst_ip; uint8_t protocol; }};
struct State {{ struct Map *fm; struct Vector *fv; struct DoubleChain *heap; uint16_t start_port; }};
static struct State *state;
static int allocate_flow(struct FlowId *id, long now, uint16_t *port) {{
    int index;
    {translate}
    struct FlowId *key = 0;
    vector_borrow(state->fv, index, (void **)&key);
    memcpy((void *)key, (void *)id, sizeof(struct FlowId));
    map_put(state->fm, key, index);
    *port = state->start_port + index;
    return 1;
}}
static int outbound(struct FlowId *id, long now, uint16_t *port) {{
    int index;
    if (map_get(state->fm, id, &index)) {{
        dchain_rejuvenate_index(state->heap, index, now);
        *port = state->start_port + index;
        return 1;
    }}
    return allocate_flow(id, now, port);
}}
int nf_process(uint16_t device, uint8_t *buffer, long now) {{
    void *chunk;
    nf_borrow_next_chunk(buffer, sizeof(struct rte_ipv4_hdr), &chunk);
    struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)chunk;
    nf_borrow_next_chunk(buffer, sizeof(struct tcpudp_hdr), &chunk);
    struct tcpudp_hdr *l4 = (struct tcpudp_hdr *)chunk;
    struct FlowId id = {{ .src_port = l4->src_port, .dst_port = l4->dst_port,
        .src_ip = ip->src_addr, .dst_ip = ip->dst_addr, .protocol = ip->next_proto_id }};
    uint16_t port;
    if (!outbound(&id, now, &port)) return device;
    l4->src_port = port;
    return 1 - device;
}}"#
    ))
}

#[test]
fn a_position_unseen_code_hands_out_from_state_is_an_allocation() {
    // The external port is an index the allocator handed out: the entry
    // written there (through the borrowed pointer, by memcpy) is found
    // again by that port, which plays another role in the reply: no
    // packet field keys it, the NF is not splittable.
    let f =
        opaque_library_nat("if (!dchain_allocate_new_index(state->heap, &index, now)) return 0;");
    assert!(f.stateful, "{f:?}");
    let fv = f
        .state_objects
        .iter()
        .find(|o| o.name == "state.fv")
        .expect("the vector is a table of its own");
    assert!(fv.key.is_empty(), "{f:?}");
    assert!(
        f.split_hazards
            .iter()
            .any(|h| h.object == "state.fv" && h.reason.contains("state.heap")),
        "{f:?}"
    );
    // Look-alike: the index is the packet's own port (a direct-mapped
    // table): entries are keyed by it and nothing is allocated.
    let f = opaque_library_nat("index = id->src_port & 1023;");
    assert!(f.stateful, "{f:?}");
    assert!(
        !f.split_hazards.iter().any(|h| h.object == "state.fv"),
        "{f:?}"
    );
    let fv = f
        .state_objects
        .iter()
        .find(|o| o.name == "state.fv")
        .expect("the vector is a table of its own");
    assert_eq!(fv.key, [nfc_core::facts::Field::SrcPort], "{f:?}");
}

/// A capture-loop monitor in the style of a terminal traffic monitor: the
/// entry receives packets itself (through code the analysis cannot see)
/// into a descriptor it holds in place, and hands them with a table it
/// declares to a handler. `table_decl` is where the table lives.
fn capture_monitor(table_decl: &str, loop_: &str) -> Facts {
    facts(&format!(
        r#"#include <stdint.h>
#include <stdlib.h>
#include <string.h>
struct ethhdr {{ unsigned char h_dest[6]; unsigned char h_source[6]; uint16_t h_proto; }};
struct pkt_hdr {{ unsigned int pkt_len; struct ethhdr *ethhdr; }};
struct capt {{ int fd; }};
int capt_recv_packet(struct capt *capt, struct pkt_hdr *pkt);
struct station {{ struct station *next; unsigned char mac[6]; unsigned long count; }};
struct stations {{ struct station *head; unsigned long n; }};
static int exitloop;
static struct station *find(struct stations *t, unsigned char *mac) {{
    for (struct station *s = t->head; s; s = s->next)
        if (memcmp(s->mac, mac, 6) == 0) return s;
    return NULL;
}}
static void process(struct stations *t, struct pkt_hdr *pkt) {{
    struct station *s = find(t, pkt->ethhdr->h_source);
    if (!s) {{
        s = malloc(sizeof *s);
        memcpy(s->mac, pkt->ethhdr->h_source, 6);
        s->count = 0;
        s->next = t->head;
        t->head = s;
    }}
    s->count++;
}}
{table_decl}
void monitor(const char *ifname) {{
    struct capt capt;
    struct pkt_hdr pkt;
    {loop_}
}}"#
    ))
}

#[test]
fn a_table_a_capture_loop_declares_outside_its_loop_lives_from_packet_to_packet() {
    let looping = "struct stations table = {0};
    while (!exitloop) {
        if (capt_recv_packet(&capt, &pkt) < 0) break;
        if (pkt.pkt_len > 0) process(&table, &pkt);
    }";
    let f = capture_monitor("", looping);
    assert!(f.stateful, "{f:?}");
    assert_eq!(f.flow_key, [nfc_core::facts::Field::SrcMac], "{f:?}");
    assert!(f.pointer_chasing, "{f:?}");
    // The state is the table the loop carries (not only the entries the
    // handler happens to allocate).
    assert!(
        f.state_objects
            .iter()
            .any(|o| o.name.starts_with("table") && o.per_flow),
        "{f:?}"
    );
    // The same table as a static: the same answers (the local is state for
    // the same reason the static is).
    let f = capture_monitor(
        "static struct stations table;",
        looping.trim_start_matches("struct stations table = {0};"),
    );
    assert!(f.stateful, "{f:?}");
    assert_eq!(f.flow_key, [nfc_core::facts::Field::SrcMac], "{f:?}");
    // Look-alike: the receive loop's other locals, the capture handle and
    // the descriptor the packet is received into, are handed to code the
    // analysis cannot see: they are no tables of the NF.
    let f = capture_monitor("", looping);
    assert!(
        f.state_objects
            .iter()
            .all(|o| o.name != "capt" && o.name != "pkt"),
        "{f:?}"
    );
}

/// A per-host list searched through helpers, under the source address and
/// then under the destination address, each inserting on a miss.
fn host_table(process: &str) -> Facts {
    facts(&host_table_with(process))
}

/// [`host_table`]'s source with both searches.
fn host_table_src() -> String {
    host_table_with(BOTH_SEARCHES)
}

const BOTH_SEARCHES: &str = "struct station *s = find(t, saddr);
    if (!s) s = add(t, saddr);
    s->out++;
    struct station *d = find(t, daddr);
    if (!d) d = add(t, daddr);
    d->in++;";

fn host_table_with(process: &str) -> String {
    format!(
        r#"#include <stdint.h>
#include <stdlib.h>
#include <string.h>
struct ethhdr {{ unsigned char h_dest[6]; unsigned char h_source[6]; uint16_t h_proto; }};
struct packet {{ unsigned int pkt_len; struct ethhdr *ethhdr; }};
struct station {{ struct station *next; unsigned char mac[6]; unsigned long in, out; }};
struct stations {{ struct station *head; unsigned long n; }};
static struct stations table;
static struct station *find(struct stations *t, unsigned char *mac) {{
    for (struct station *s = t->head; s; s = s->next)
        if (memcmp(s->mac, mac, 6) == 0) return s;
    return NULL;
}}
static struct station *add(struct stations *t, unsigned char *mac) {{
    struct station *s = malloc(sizeof *s);
    memcpy(s->mac, mac, 6);
    s->in = s->out = 0;
    s->next = t->head;
    t->head = s;
    return s;
}}
void process_packet(struct packet *pkt) {{
    struct stations *t = &table;
    unsigned char saddr[6], daddr[6];
    memcpy(saddr, pkt->ethhdr->h_source, 6);
    memcpy(daddr, pkt->ethhdr->h_dest, 6);
    {process}
}}"#
    )
}

#[test]
fn a_link_loaded_from_state_carries_no_key_of_the_packet_that_stored_it() {
    // The list's links hold entries that packets of both addresses linked
    // there; a walk over them is located by what it matches, one address
    // per search. No field is common to both searches.
    let f = host_table(BOTH_SEARCHES);
    assert!(f.stateful, "{f:?}");
    assert!(f.flow_key.is_empty(), "{f:?}");
    assert!(!f.splittable(), "{f:?}");
    // The address held one level down in the entry (`s->desc.mac`): the
    // same answer.
    let f = facts(
        &host_table_src()
            .replace(
                "unsigned char mac[6]; unsigned long",
                "struct { unsigned char mac[6]; } desc; unsigned long",
            )
            .replace("s->mac", "s->desc.mac"),
    );
    assert!(f.flow_key.is_empty(), "{f:?}");
    // Look-alike: one search, by the source address only: keyed by it.
    let f = host_table(
        "struct station *s = find(t, saddr);
    if (!s) s = add(t, saddr);
    s->out++;",
    );
    assert_eq!(f.flow_key, [nfc_core::facts::Field::SrcMac], "{f:?}");
}

#[test]
fn an_entry_cached_in_state_is_located_by_the_key_its_guard_compares() {
    // `last` caches the entry found last; it is handed back only when its
    // stored key equals the packet's, so what it returns is located by
    // that key, like the search that follows. (A regression check that
    // links carrying no stored key lose no key here; on this fixture the
    // table handle handed with the key already locates the entry, so the
    // guard rule itself is shown by the real-world DPDK reassembly unit,
    // whose key becomes unknown without it.)
    let f = facts(&format!(
        "{MBUF}
{IPHDR}
struct fkey {{ uint32_t src, dst; }};
struct frag {{ struct fkey key; uint64_t hist[8]; }};
struct ftable {{ struct frag *last; struct frag slots[64]; }};
static struct ftable tbl;
static int key_cmp(const struct fkey *a, const struct fkey *b) {{
    return (a->src ^ b->src) | (a->dst ^ b->dst);
}}
static struct frag *lookup(struct ftable *t, const struct fkey *k) {{
    if (t->last != NULL && key_cmp(k, &t->last->key) == 0)
        return t->last;
    for (int i = 0; i < 64; i++)
        if (key_cmp(k, &t->slots[i].key) == 0) {{
            t->last = &t->slots[i];
            return &t->slots[i];
        }}
    return NULL;
}}
void main_loop(void) {{
    struct rte_mbuf *pkts[32];
    uint16_t n = rte_eth_rx_burst(0, 0, pkts, 32);
    for (uint16_t i = 0; i < n; i++) {{
        struct iphdr *ip = rte_pktmbuf_mtod(pkts[i], struct iphdr *);
        struct fkey k = {{ ip->saddr, ip->daddr }};
        struct frag *f = lookup(&tbl, &k);
        // A histogram over a payload byte: located by the entry and by
        // packet data of no named field.
        const uint8_t *payload = rte_pktmbuf_mtod(pkts[i], const uint8_t *);
        if (f) f->hist[payload[100] & 7] += 1;
    }}
    rte_eth_tx_burst(1, 0, pkts, n);
}}"
    ));
    assert!(f.stateful, "{f:?}");
    assert_eq!(
        f.flow_key,
        [nfc_core::facts::Field::SrcIp, nfc_core::facts::Field::DstIp],
        "{f:?}"
    );
}

#[test]
fn a_loop_that_counts_down_still_lets_the_fixpoint_settle() {
    // `len -= 12` lowers the constant a join keeps (the smaller of two) on
    // every round; without a widening the fixpoint never settles and the
    // analysis ends with no answers.
    let f = facts(&format!(
        "{MBUF}
{IPHDR}
static uint64_t per_src[1024];
static int options(const uint8_t *p) {{
    int n = 0;
    int left = 180;
    while (left > 0) {{
        n += p[left & 63];
        left -= 12;
    }}
    return n;
}}
void main_loop(void) {{
    struct rte_mbuf *pkts[32];
    uint16_t n = rte_eth_rx_burst(0, 0, pkts, 32);
    for (uint16_t i = 0; i < n; i++) {{
        struct iphdr *ip = rte_pktmbuf_mtod(pkts[i], struct iphdr *);
        if (options((const uint8_t *)ip) > 0)
            per_src[ip->saddr & 1023] += 1;
    }}
    rte_eth_tx_burst(1, 0, pkts, n);
}}"
    ));
    assert!(f.unknown.is_empty(), "{f:?}");
    assert!(f.stateful, "{f:?}");
    assert_eq!(f.flow_key, [nfc_core::facts::Field::SrcIp], "{f:?}");
}

/// A value that needs `n` rounds to reach the table: `n` locals copied in
/// reverse order inside a loop, so each round carries the field one copy
/// further.
fn copy_chain(n: usize) -> String {
    let body: Vec<String> = (1..n)
        .map(|i| format!("        a{i} = a{};", i + 1))
        .collect();
    let decl: Vec<String> = (1..=n).map(|i| format!("a{i} = 0")).collect();
    format!(
        "#include <stdint.h>
{IPHDR}
static uint64_t counts[1024];
void process(uint8_t *frame, int len) {{
    struct iphdr *ip = (struct iphdr *)(frame + 14);
    uint32_t {};
    for (int r = 0; r < len; r++) {{
{}
        a{n} = ip->saddr;
    }}
    counts[a1 & 1023] += 1;
}}",
        decl.join(", "),
        body.join("\n")
    )
}

#[test]
fn a_fixpoint_that_has_not_settled_gives_no_answers() {
    // Twenty copies settle within the round limit: keyed by the source.
    let f = facts(&copy_chain(20));
    assert!(f.unknown.is_empty(), "{f:?}");
    assert_eq!(f.flow_key, [nfc_core::facts::Field::SrcIp], "{f:?}");
    // Forty do not: every answer is unknown, with the reason, and the hint
    // says that more budget would not help.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nf.c");
    std::fs::write(&path, copy_chain(40)).unwrap();
    let input = input_from_paths(None, &[path]).unwrap();
    let (f, diags) = analyze(&input, &AnalyzeOptions::default()).unwrap();
    assert!(
        f.unknown
            .iter()
            .any(|u| u.reason.contains("did not settle")),
        "{f:?}"
    );
    assert!(f.flow_key.is_empty() && !f.splittable(), "{f:?}");
    let d = diags
        .iter()
        .find(|d| d.code == "A0110")
        .expect("an A0110 diagnostic");
    assert!(
        d.hint
            .as_deref()
            .is_some_and(|h| h.contains("does not converge")),
        "{d:?}"
    );
}

#[test]
fn a_histogram_indexed_by_packet_length_is_no_per_flow_state() {
    // The IP total length is packet data, but a magnitude every flow's
    // packets share: a table indexed by it counts sizes, not flows. The
    // same table indexed by the source address is per-flow state.
    let hist = |index: &str| {
        facts(&format!(
            "{MBUF}
{IPHDR}
static uint64_t sizes[64];
void main_loop(void) {{
    struct rte_mbuf *pkts[32];
    uint16_t n = rte_eth_rx_burst(0, 0, pkts, 32);
    for (uint16_t i = 0; i < n; i++) {{
        struct iphdr *ip = rte_pktmbuf_mtod(pkts[i], struct iphdr *);
        sizes[{index}]++;
    }}
    rte_eth_tx_burst(1, 0, pkts, n);
}}"
        ))
    };
    let by_length = hist("(__builtin_bswap16(ip->tot_len) / 32) & 63");
    assert!(by_length.unknown.is_empty(), "{by_length:?}");
    assert!(!by_length.stateful, "{by_length:?}");
    let by_source = hist("ip->saddr & 63");
    assert!(by_source.stateful, "{by_source:?}");
    assert_eq!(
        by_source.flow_key,
        [nfc_core::facts::Field::SrcIp],
        "{by_source:?}"
    );
}

#[test]
fn a_table_indexed_by_the_arrival_device_is_no_per_flow_state() {
    // `skb->dev->ifindex`: the interface the packet arrived on, recorded in
    // a struct the descriptor points at, is no packet data (as the
    // descriptor's own `port` or `ifindex` is not): per-device counters.
    let f = facts(
        "#include <stdint.h>
struct net_device { int ifindex; char name[16]; };
struct sk_buff { unsigned char *data; struct net_device *dev; unsigned int len; };
struct iphdr { uint8_t ihl; uint8_t tos; uint16_t tot_len; uint16_t id; uint16_t frag_off; uint8_t ttl; uint8_t protocol; uint16_t check; uint32_t saddr; uint32_t daddr; };
static uint64_t rx_per_dev[64];
int count_rx(struct sk_buff *skb) {
    struct iphdr *ip = (struct iphdr *)skb->data;
    if (ip->protocol != 6)
        return 0;
    rx_per_dev[skb->dev->ifindex & 63]++;
    return 1;
}",
    );
    assert!(f.unknown.is_empty(), "{f:?}");
    assert!(!f.stateful, "{f:?}");
}

#[test]
fn a_root_handed_header_fields_one_by_one_is_the_packet_path() {
    // A display filter called with the fields its caller parsed, beside a
    // dialog that edits the filter from strings: the filter is the packet
    // path (it only reads the list), not the dialog. A root handed fields
    // that counts per source address keeps per-flow state under them.
    let filter = |body: &str| {
        facts(&format!(
            "#include <stdint.h>
struct filterent {{ unsigned long saddr, smask; int proto; int verdict; struct filterent *next; }};
struct hostparams {{ unsigned long saddr; int proto; }};
static struct filterent *filters;
static uint64_t per_src[256];
int parse_addr(const char *s, unsigned long *out);
void gethostparams(struct hostparams *data, char *init_saddr, char *init_proto)
{{
    parse_addr(init_saddr, &data->saddr);
    data->proto = init_proto[0] == 't' ? 6 : 17;
}}
int ipfilter(unsigned long saddr, unsigned long daddr, unsigned int protocol)
{{
{body}
}}"
        ))
    };
    let reads = filter(
        "    for (struct filterent *fe = filters; fe; fe = fe->next)
        if ((saddr & fe->smask) == fe->saddr && protocol == fe->proto)
            return fe->verdict;
    return 0;",
    );
    assert!(reads.unknown.is_empty(), "{reads:?}");
    assert!(!reads.stateful, "{reads:?}");
    let counts = filter("    per_src[saddr & 255]++;\n    return daddr != 0;");
    assert!(counts.stateful, "{counts:?}");
    assert_eq!(
        counts.flow_key,
        [nfc_core::facts::Field::SrcIp],
        "{counts:?}"
    );
}

#[test]
fn a_root_handed_a_record_pointing_at_the_headers_is_the_packet_path() {
    // The NF's own parsed-packet record (`struct pkt_hdr`, whatever its name
    // says: it points at the IP header) handed to a root is a packet, as an
    // mbuf is: the root counts per source address. A header's pure inline
    // accessor taking the same record, which nothing here calls, is no
    // packet path: alone, the files have no entry point. The port it hands
    // back through an `in_port_t *` (POSIX's integer, declared by a system
    // header the analysis does not read) is a result, not state the caller
    // keeps.
    let unit = |root: &str| {
        facts(&format!(
            "#include <stdint.h>
#include <netinet/in.h>
{IPHDR}
struct udphdr {{ uint16_t source; uint16_t dest; uint16_t len; uint16_t check; }};
struct pkt_hdr {{ char *pkt_buf; unsigned long pkt_len; struct iphdr *iphdr; }};
static inline uint8_t pkt_ip_protocol(const struct pkt_hdr *p) {{ return p->iphdr->protocol; }}
static uint64_t per_src[256];
{root}"
        ))
    };
    let counts = unit(
        "int packet_process(struct pkt_hdr *pkt, unsigned int *total, in_port_t *sport)
{
    if (pkt_ip_protocol(pkt) != 17)
        return 0;
    per_src[pkt->iphdr->saddr & 255]++;
    *total = pkt->pkt_len;
    struct udphdr *udp = (struct udphdr *)((char *)pkt->iphdr + 20);
    in_port_t sport_tmp = udp->source;
    if (sport != NULL)
        *sport = sport_tmp;
    return 1;
}",
    );
    assert!(counts.unknown.is_empty(), "{counts:?}");
    assert!(counts.stateful, "{counts:?}");
    assert_eq!(
        counts.flow_key,
        [nfc_core::facts::Field::SrcIp],
        "{counts:?}"
    );
    let accessor_only = unit("");
    assert!(
        accessor_only
            .unknown
            .iter()
            .any(|u| u.question == Question::Stateful),
        "{accessor_only:?}"
    );
}

#[test]
fn a_search_match_locates_the_cursor_on_its_branch_whatever_the_list_head_held() {
    // A reassembly list in the kernel's style, with the NF's own list.h
    // (`list_for_each_entry` over `container_of` arithmetic): a miss links
    // the new entry first (`list_add_tail` through a helper) and stores its
    // key after. The entry the search returns is the one whose stored
    // fields equal the packet's: located by them on the match's branch,
    // even though what the head held when the walk began carried none.
    let f = facts(&format!(
        r#"#include <stdint.h>
#include <stddef.h>
{IPHDR}
struct list_head {{ struct list_head *next, *prev; }};
#define LIST_HEAD(name) struct list_head name = {{ &(name), &(name) }}
static inline void __list_add(struct list_head *new, struct list_head *prev, struct list_head *next)
{{ next->prev = new; new->next = next; new->prev = prev; prev->next = new; }}
static inline void list_add_tail(struct list_head *new, struct list_head *head) {{ __list_add(new, head->prev, head); }}
#define list_entry(ptr, type, member) ((type *)( (char *)(ptr) - offsetof(type, member) ))
#define list_for_each_entry(pos, head, member) \
    for (pos = list_entry((head)->next, typeof(*pos), member); &pos->member != (head); \
         pos = list_entry(pos->member.next, typeof(*pos), member))
struct pkt_hdr {{ char *pkt_buf; unsigned long pkt_len; struct iphdr *iphdr; }};
struct fragent {{ struct list_head node; uint32_t saddr, daddr; uint8_t protocol; uint16_t id; unsigned int bytes; }};
static LIST_HEAD(frags);
void *xmalloc(size_t n);
static struct fragent *add(const struct iphdr *ip)
{{
    struct fragent *e = xmalloc(sizeof *e);
    list_add_tail(&e->node, &frags);
    e->saddr = ip->saddr; e->daddr = ip->daddr; e->protocol = ip->protocol; e->id = ip->id;
    e->bytes = 0;
    return e;
}}
static struct fragent *find(uint32_t saddr, uint32_t daddr, uint8_t protocol, uint16_t id)
{{
    struct fragent *e;
    list_for_each_entry(e, &frags, node) {{
        if (e->saddr == saddr && e->daddr == daddr && e->protocol == protocol && e->id == id)
            return e;
    }}
    return NULL;
}}
int packet_process(struct pkt_hdr *pkt)
{{
    const struct iphdr *ip = pkt->iphdr;
    struct fragent *e = find(ip->saddr, ip->daddr, ip->protocol, ip->id);
    if (e == NULL)
        e = add(ip);
    e->bytes += pkt->pkt_len;
    return 1;
}}"#
    ));
    assert!(f.unknown.is_empty(), "{f:?}");
    assert!(f.stateful, "{f:?}");
    assert_eq!(
        f.flow_key,
        [
            nfc_core::facts::Field::SrcIp,
            nfc_core::facts::Field::DstIp,
            nfc_core::facts::Field::Proto
        ],
        "{f:?}"
    );
}

#[test]
fn a_loop_filling_a_parsed_packet_record_by_address_receives_packets() {
    // A capture loop in a monitor's style: the code the files do not hold
    // (`capt_get_packet`) fills the loop's own parsed-packet record, and the
    // loop hands it to the NF's handler, which counts packet sizes in the
    // loop's table. That call is the receive: the interface name the loop
    // was handed is no frame, so what is derived from it (the MTU that
    // sizes the histogram) is no packet data. A size histogram is no
    // per-flow state; the same loop counting per source address is.
    let monitor = |index: &str| {
        facts(&format!(
            "#include <stdint.h>
{IPHDR}
struct pkt_hdr {{ char *pkt_buf; unsigned long pkt_len; struct iphdr *iphdr; }};
struct capt {{ int fd; }};
struct sizetab {{ unsigned int mtu, interval; unsigned long count[64]; }};
int capt_init(struct capt *c, char *ifname);
int capt_get_packet(struct capt *c, struct pkt_hdr *pkt);
int dev_get_mtu(char *ifname);
static volatile int exitloop;
static void count(struct sizetab *t, struct pkt_hdr *pkt)
{{
    t->count[{index}]++;
}}
void size_breakdown(char *ifname)
{{
    struct sizetab table;
    struct capt capt;
    struct pkt_hdr pkt;
    capt_init(&capt, ifname);
    table.mtu = dev_get_mtu(ifname);
    table.interval = table.mtu / 64 + 1;
    while (!exitloop) {{
        if (capt_get_packet(&capt, &pkt) < 0)
            break;
        if (pkt.pkt_len > 0)
            count(&table, &pkt);
    }}
}}"
        ))
    };
    let sizes = monitor("(pkt->pkt_len / t->interval) & 63");
    assert!(sizes.unknown.is_empty(), "{sizes:?}");
    assert!(!sizes.stateful, "{sizes:?}");
    let sources = monitor("pkt->iphdr->saddr & 63");
    assert!(sources.stateful, "{sources:?}");
    assert_eq!(
        sources.flow_key,
        [nfc_core::facts::Field::SrcIp],
        "{sources:?}"
    );
}

#[test]
fn a_running_maximum_decides_nothing_but_itself() {
    // Per-source byte counts beside a global running maximum of the packet
    // length: the test of the maximum only updates it, so each core's copy,
    // merged by max, is the one copy's value: the NF splits by source. The
    // same test deciding the packet's verdict steers the packet path.
    let nf = |on_larger: &str| {
        facts(&format!(
            "{MBUF}
{IPHDR}
static uint64_t bytes[256];
static struct {{ uint32_t max_len; uint64_t dropped; }} st;
int handle(struct rte_mbuf *m)
{{
    struct iphdr *ip = rte_pktmbuf_mtod(m, struct iphdr *);
    uint32_t len = __builtin_bswap16(ip->tot_len);
    bytes[ip->saddr & 255] += len;
    if (st.max_len < len)
        {on_larger}
    return 1;
}}"
        ))
    };
    let tracks = nf("st.max_len = len;");
    assert!(
        tracks.split_hazards.is_empty(),
        "{:?}",
        tracks.split_hazards
    );
    assert!(tracks.splittable(), "{tracks:?}");
    let decides = nf("{ st.max_len = len; return 0; }");
    assert!(!decides.splittable(), "{decides:?}");
}

/// A connection table in the style of a traffic monitor: `process_packet`
/// finds the entry of the packet's (source, destination) endpoints and, on
/// a miss, `add` creates it and a second entry linked to it (`c->other`);
/// `second` fills the second entry and `link_second` links it (`park`
/// puts it in another table, which no lookup searches).
fn two_entry_table(second: &str, link_second: &str) -> Facts {
    facts(&format!(
        r#"#include <stdint.h>
#include <stdlib.h>
{IPHDR}
struct tcphdr {{ uint16_t source; uint16_t dest; uint32_t seq; uint32_t ack_seq; uint16_t flags; }};
struct packet {{ unsigned int pkt_len; struct iphdr *iph; struct tcphdr *tcp; }};
struct endpoint {{ uint32_t addr; uint16_t port; }};
struct conn {{ struct endpoint src; struct endpoint dst; uint8_t proto; unsigned long packets; int fin; struct conn *other; struct conn *next; }};
struct conn_table {{ struct conn *buckets[1024]; unsigned long count; }};
static struct conn_table conns, closing;
static unsigned int conn_hash(const struct endpoint *a, const struct endpoint *b) {{
    return (a->addr * 4 + a->port * 3 + b->addr * 2 + b->port) & 1023;
}}
static int same(const struct endpoint *a, const struct endpoint *b) {{
    return a->addr == b->addr && a->port == b->port;
}}
static struct conn *find(struct conn_table *t, const struct endpoint *s, const struct endpoint *d) {{
    for (struct conn *c = t->buckets[conn_hash(s, d)]; c; c = c->next)
        if (same(&c->src, s) && same(&c->dst, d))
            return c;
    return NULL;
}}
static void link_conn(struct conn_table *t, struct conn *c) {{
    unsigned int h = conn_hash(&c->src, &c->dst);
    c->next = t->buckets[h];
    t->buckets[h] = c;
}}
static void park(struct conn *c) {{
    closing.buckets[conn_hash(&c->src, &c->dst)] = c;
}}
static struct conn *add(struct conn_table *t, const struct endpoint *s, const struct endpoint *d, uint8_t proto) {{
    struct conn *c = malloc(sizeof *c);
    c->other = malloc(sizeof *c);
    c->other->other = c;
    c->src = *s;
    c->dst = *d;
    {second}
    c->packets = c->other->packets = 0;
    c->fin = c->other->fin = 0;
    link_conn(t, c);
    {link_second}
    t->count++;
    return c;
}}
void process_packet(struct packet *p) {{
    struct endpoint s, d;
    s.addr = p->iph->saddr;
    s.port = p->tcp->source;
    d.addr = p->iph->daddr;
    d.port = p->tcp->dest;
    struct conn *c = find(&conns, &s, &d);
    if (!c) c = add(&conns, &s, &d, p->iph->protocol);
    c->packets++;
    if (p->tcp->flags & 1) c->other->fin = 1;
}}"#
    ))
}

const SWAPPED: &str = "c->other->src = *d;\n    c->other->dst = *s;";

#[test]
fn a_second_entry_stored_with_the_roles_swapped_is_reached_by_the_reply() {
    // The packet that opens the connection stores, beside its own entry,
    // the entry a reply's lookup meets: both directions reach state that
    // packet wrote.
    let f = two_entry_table(SWAPPED, "link_conn(t, c->other);");
    assert!(f.stateful, "{f:?}");
    assert!(f.symmetric && !f.is_unknown(Question::Symmetric), "{f:?}");
    assert!(
        f.evidence
            .iter()
            .any(|e| e.question == Question::Symmetric && e.reason.contains("roles swapped")),
        "{f:?}"
    );
    // Look-alikes: a second entry in the same orientation (a copy; the
    // match hands `same` the source endpoint and then the destination
    // endpoint, each one end only, which is no swapped entry either), and
    // the swapped entry linked into another table no lookup searches.
    let f = two_entry_table(
        "c->other->src = *s;\n    c->other->dst = *d;",
        "link_conn(t, c->other);",
    );
    assert!(!f.symmetric, "{f:?}");
    let f = two_entry_table(SWAPPED, "park(c->other);");
    assert!(!f.symmetric, "{f:?}");
}

#[test]
fn a_swapped_entry_is_told_by_its_directional_members_only() {
    // The protocol, stored in the first entry only, tells no direction:
    // the second entry still holds the first's endpoints with the roles
    // swapped (iptraf-ng's TCP table sets `protocol` on one half).
    let f = two_entry_table(
        &format!("c->proto = proto;\n    {SWAPPED}"),
        "link_conn(t, c->other);",
    );
    assert!(f.symmetric && !f.is_unknown(Question::Symmetric), "{f:?}");
    // Look-alike: the same copy in the same orientation stays no evidence.
    let f = two_entry_table(
        "c->proto = proto;\n    c->other->src = *s;\n    c->other->dst = *d;",
        "link_conn(t, c->other);",
    );
    assert!(!f.symmetric, "{f:?}");
}

/// An XDP program counting packets per address pair held in `k`, which
/// `order` fills.
fn ordered_pair(order: &str) -> Facts {
    facts(&format!(
        "{XDP}
struct pair {{ __u32 lo, hi; }};
struct {{ __uint(type, BPF_MAP_TYPE_HASH); __uint(max_entries, 1024); __type(key, struct pair); __type(value, __u64); }} conns SEC(\".maps\");
SEC(\"xdp\")
int prog(struct xdp_md *ctx) {{
    void *data = (void *)(long)ctx->data;
    struct iphdr *ip = data + 14;
    struct pair k = {{}};
    {order}
    __u64 *n = bpf_map_lookup_elem(&conns, &k);
    if (n) *n += 1;
    return 2;
}}"
    ))
}

#[test]
fn an_order_chosen_by_a_test_that_tells_no_direction_serves_one_direction() {
    // Ordered by comparing the pair itself: a request and its reply fill
    // `k` alike.
    let f = ordered_pair(
        "k.lo = ip->saddr < ip->daddr ? ip->saddr : ip->daddr;
    k.hi = ip->saddr < ip->daddr ? ip->daddr : ip->saddr;",
    );
    assert!(f.symmetric, "{f:?}");
    // Look-alike: the same choice made by the TTL, which a reply does not
    // mirror: either direction may take either order.
    let f = ordered_pair(
        "k.lo = ip->ttl > 64 ? ip->saddr : ip->daddr;
    k.hi = ip->ttl > 64 ? ip->daddr : ip->saddr;",
    );
    assert!(f.stateful, "{f:?}");
    assert!(!f.symmetric, "{f:?}");
}

#[test]
fn a_writable_byte_buffer_is_no_second_packet_path_beside_a_found_one() {
    // Beside a root handed the packet's descriptor, a configuration routine
    // handed a writable byte string (a signature being registered, in the
    // `u8 *` style of code that spells strings so) is no packet path: its
    // table, located by a hash of the string, is configuration, and must
    // not make the packet path's key unknown. A root handed read-only bytes
    // (`const u8 *`, as an NF's process function takes the frame beside
    // the accessors found first) stays a packet path of its own.
    let unit = |qualifier: &str| {
        facts(&format!(
            "{MBUF}
{IPHDR}
static uint64_t per_src[256];
static uint32_t sig_count[64];
void count(struct rte_mbuf *m)
{{
    struct iphdr *ip = rte_pktmbuf_mtod(m, struct iphdr *);
    per_src[ip->saddr & 255]++;
}}
void sig_register({qualifier}uint8_t *val, uint32_t line_no)
{{
    uint32_t h = line_no;
    while (*val)
        h = h * 31 + *val++;
    sig_count[h % 64]++;
}}
"
        ))
    };
    let configured = unit("");
    assert!(configured.unknown.is_empty(), "{configured:?}");
    assert!(configured.stateful, "{configured:?}");
    assert_eq!(
        configured.flow_key,
        [nfc_core::facts::Field::SrcIp],
        "{configured:?}"
    );
    // Read as a frame, the string's first byte is the destination MAC: no
    // field is common to both tables.
    let read_only = unit("const ");
    assert!(
        read_only
            .state_objects
            .iter()
            .any(|o| o.name == "sig_count"),
        "{read_only:?}"
    );
    assert!(read_only.flow_key.is_empty(), "{read_only:?}");
}

#[test]
fn a_target_whose_signature_differs_by_kernel_version_keeps_its_packet_path() {
    // Kernel compatibility code picks the parameter list by version inside
    // the parentheses. Kept side by side, the alternatives do not parse and
    // the whole function — the packet path — is lost: the NF came out
    // "stateless". One alternative (the fall-through, newest one) parses.
    let f = facts(&format!(
        r#"#include <stdint.h>
{IPHDR}
struct sk_buff;
struct xt_action_param;
const struct iphdr *ip_hdr(const struct sk_buff *skb);
struct host {{ uint32_t addr; uint64_t packets; }};
static struct host hosts[1024];
static unsigned int count_target(
#if LINUX_VERSION_CODE < KERNEL_VERSION(2,6,24)
    struct sk_buff **pskb,
#else
    struct sk_buff *skb,
#endif
#if LINUX_VERSION_CODE < KERNEL_VERSION(2,6,28)
    const void *targinfo
#else
    const struct xt_action_param *par
#endif
    )
{{
#if LINUX_VERSION_CODE < KERNEL_VERSION(2,6,24)
    struct sk_buff *skb = *pskb;
#endif
    const struct iphdr *iph = ip_hdr(skb);
    struct host *h = &hosts[iph->saddr & 1023];
    h->addr = iph->saddr;
    h->packets++;
    return 0;
}}"#
    ));
    assert!(f.stateful, "{f:?}");
    assert_eq!(f.flow_key, vec![nfc_core::facts::Field::SrcIp], "{f:?}");
}

/// A service counter in the style of a traffic monitor: a parser whose body
/// is elsewhere hands the ports out through parameters its declaration
/// names `names`; each port's entry is counted for both ends.
fn ports_from_a_parser_declared_as(names: (&str, &str)) -> Facts {
    let (a, b) = names;
    facts(&format!(
        r#"#include <stdint.h>
{IPHDR}
struct pkt_hdr {{ unsigned char *pkt_buf; unsigned int pkt_len; struct iphdr *iphdr; }};
int packet_process(struct pkt_hdr *pkt, unsigned int *total_br, uint16_t *{a}, uint16_t *{b});
struct portent {{ uint16_t port; uint8_t proto; unsigned long count; struct portent *next; }};
static struct portent *ports;
static struct portent *find_port(uint8_t proto, uint16_t port) {{
    for (struct portent *p = ports; p; p = p->next)
        if (p->port == port && p->proto == proto)
            return p;
    return 0;
}}
void serv_process_packet(struct pkt_hdr *pkt) {{
    unsigned int br;
    uint16_t sport = 0, dport = 0;
    if (packet_process(pkt, &br, &sport, &dport) != 0)
        return;
    struct portent *e = find_port(pkt->iphdr->protocol, sport);
    if (e) e->count++;
    e = find_port(pkt->iphdr->protocol, dport);
    if (e) e->count++;
}}"#
    ))
}

#[test]
fn out_parameters_an_unseen_parser_declares_by_field_name_hold_those_fields() {
    // `packet_process(pkt, &br, &sport, &dport)`: the body is in another
    // file, but the declaration says what it fills. A port's entry is then
    // found by the source port here and the destination port there: both
    // directions reach it, and only the protocol locates every entry.
    let f = ports_from_a_parser_declared_as(("sport", "dport"));
    assert!(f.stateful, "{f:?}");
    assert!(f.symmetric && !f.is_unknown(Question::Symmetric), "{f:?}");
    assert_eq!(f.flow_key, vec![nfc_core::facts::Field::Proto], "{f:?}");
    // Look-alike: a declaration whose names say nothing leaves the values
    // packet bytes of unnamed fields: no symmetry is claimed.
    let f = ports_from_a_parser_declared_as(("out_a", "out_b"));
    assert!(f.stateful, "{f:?}");
    assert!(!f.symmetric, "{f:?}");
}

#[test]
fn a_walk_over_a_whole_list_is_not_keyed_by_what_its_entries_hold() {
    // A list header (cursors and a window handle) whose entries are found by
    // protocol and port, one port per end; a periodic pass walks every
    // entry from the head, and a display cursor shows one entry's rate. What the entries hold (both ports) says which
    // entry a search selects, not where the header or a walk from it goes:
    // no object is keyed by a port, and only the protocol locates every
    // access.
    let f = facts(&format!(
        r#"#include <stdint.h>
#include <stdlib.h>
{IPHDR}
struct pkt_hdr {{ unsigned char *pkt_buf; unsigned int pkt_len; struct iphdr *iphdr; }};
int packet_process(struct pkt_hdr *pkt, unsigned int *total_br, uint16_t *sport, uint16_t *dport);
void draw(void *win, int count, unsigned long rate);
void rate_init(unsigned long *rate);
struct portent {{ uint16_t port; uint8_t proto; unsigned long bytes; unsigned long rate; struct portent *next_entry; }};
struct portlist {{ struct portent *head; struct portent *tail; struct portent *cursor; int count; void *win; }};
static struct portent *inportlist(struct portlist *l, uint8_t proto, uint16_t port) {{
    for (struct portent *p = l->head; p; p = p->next_entry)
        if (p->port == port && p->proto == proto)
            return p;
    return 0;
}}
static struct portent *addtoportlist(struct portlist *l, uint8_t proto, uint16_t port) {{
    struct portent *e = malloc(sizeof *e);
    e->port = port;
    e->proto = proto;
    e->bytes = 0;
    rate_init(&e->rate);
    e->next_entry = 0;
    if (!l->cursor) l->cursor = e;
    if (l->tail) l->tail->next_entry = e; else l->head = e;
    l->tail = e;
    l->count++;
    return e;
}}
static void update(struct portlist *l, uint8_t proto, uint16_t port, unsigned int br) {{
    struct portent *e = inportlist(l, proto, port);
    if (!e) e = addtoportlist(l, proto, port);
    e->bytes += br;
}}
static void update_rates(struct portlist *l) {{
    for (struct portent *p = l->head; p; p = p->next_entry) {{
        p->rate = p->bytes;
        p->bytes = 0;
    }}
}}
int capt_get_packet(struct pkt_hdr *pkt);
static void serv_process_packet(struct portlist *table, struct pkt_hdr *pkt) {{
    unsigned int br;
    uint16_t sport = 0, dport = 0;
    if (packet_process(pkt, &br, &sport, &dport) != 0)
        return;
    update(table, pkt->iphdr->protocol, sport, br);
    update(table, pkt->iphdr->protocol, dport, br);
}}
void servmon(void) {{
    struct portlist list = {{0}};
    struct pkt_hdr pkt;
    for (;;) {{
        update_rates(&list);
        draw(list.win, list.count, list.cursor ? list.cursor->rate : 0);
        if (capt_get_packet(&pkt) <= 0)
            continue;
        serv_process_packet(&list, &pkt);
    }}
}}"#
    ));
    assert!(f.stateful, "{f:?}");
    for o in &f.state_objects {
        assert!(
            !o.key.iter().any(|k| matches!(
                k,
                nfc_core::facts::Field::SrcPort | nfc_core::facts::Field::DstPort
            )),
            "`{}` keyed by a port: {f:?}",
            o.name
        );
    }
    assert!(
        f.flow_key
            .iter()
            .all(|k| *k == nfc_core::facts::Field::Proto),
        "{f:?}"
    );
}

#[test]
fn an_ordered_pair_of_key_arguments_is_no_mirrored_key() {
    // An unseen lookup handed the source address as one argument and the
    // destination as the next: one ordered key, not a key seen from both
    // ends. A reply reaches another entry.
    let ordered = facts(&format!(
        r#"#include <stdint.h>
{IPHDR}
struct table;
static struct table *conns;
unsigned long *table_find(struct table *t, const uint32_t *src, const uint32_t *dst);
void process(const uint8_t *pkt, uint32_t len) {{
    const struct iphdr *ip = (const struct iphdr *)(pkt + 14);
    uint32_t s = ip->saddr, d = ip->daddr;
    unsigned long *n = table_find(conns, &s, &d);
    if (n) (*n)++;
}}"#
    ));
    assert!(ordered.stateful, "{ordered:?}");
    assert!(!ordered.symmetric, "{ordered:?}");
}

#[test]
fn a_macro_defined_for_a_debug_build_is_not_the_default_builds() {
    // `#ifndef DEBUG_BUILD` picks the allocator the default build uses; the
    // allocation-tracking variant under its `#else` (a table indexed by a
    // hash of the pointer) is no state of the NF built without `-D` flags.
    let src = |switch: &str| {
        format!(
            r#"#include <stdint.h>
#include <stdlib.h>
{IPHDR}
{switch}
struct trk_obj {{ void *ptr; }};
struct trk_obj *TRK[64];
unsigned TRK_cnt[64];
static inline void *plain_alloc(unsigned n) {{ return malloc(n); }}
static inline void *tracked_alloc(unsigned n) {{
    void *p = malloc(n);
    unsigned b = (unsigned)((unsigned long)p % 64);
    TRK[b][TRK_cnt[b]].ptr = p;
    TRK_cnt[b]++;
    return p;
}}
#ifndef DEBUG_BUILD
#define ck_alloc plain_alloc
#else
#define ck_alloc(n) tracked_alloc(n)
#endif
void emit(uint32_t *v);
void process(const uint8_t *pkt, uint32_t len) {{
    const struct iphdr *ip = (const struct iphdr *)(pkt + 14);
    uint32_t *copy = ck_alloc(4);
    *copy = ip->saddr;
    emit(copy);
}}"#
        )
    };
    let tracked = |f: &Facts| f.state_objects.iter().any(|o| o.name.starts_with("TRK"));
    let default_build = facts(&src(""));
    assert!(!tracked(&default_build), "{default_build:?}");
    // Built with the switch on, the tracking table is written per packet.
    let debug_build = facts(&src("#define DEBUG_BUILD 1"));
    assert!(tracked(&debug_build), "{debug_build:?}");
}

#[test]
fn a_flow_struct_named_after_packets_handed_beside_the_packet_is_state() {
    // p0f hands its fingerprinting code the parsed `packet_data` and the
    // connection's `packet_flow`: the second is what the NF keeps about
    // packets (written here, read back on a later packet), not a packet.
    let f = facts(
        r#"#include <stdint.h>
struct packet_data { uint32_t src, dst; uint16_t sport, dport, mss; uint8_t syn; };
struct packet_flow { uint16_t syn_mss; uint8_t seen; };
int fingerprint(struct packet_data *pk, struct packet_flow *f) {
    if (pk->syn) {
        f->syn_mss = pk->mss;
        return 0;
    }
    return f->syn_mss != pk->mss;
}"#,
    );
    assert!(f.stateful || f.is_unknown(Question::Stateful), "{f:?}");
    assert!(f.state_objects.iter().any(|o| o.name == "*f"), "{f:?}");
}

#[test]
fn a_cursor_recovered_from_its_link_member_chases_pointers() {
    // uthash's bucket walk: the next entry is recovered from the link
    // member's address (`ELMT_FROM_HH`, a `container_of`) and cast to the
    // cursor's own type with `__typeof`.
    let f = facts(&format!(
        r#"#include <stdint.h>
{IPHDR}
struct hh {{ struct hh *next; uint32_t key; }};
struct entry {{ uint64_t bytes; struct hh hh; }};
struct table {{ struct hh *buckets[256]; long hho; }};
static struct table tbl;
#define ELMT_FROM_HH(t, h) ((void *)(((char *)(h)) - ((t)->hho)))
void process(const uint8_t *pkt, uint32_t len) {{
    const struct iphdr *ip = (const struct iphdr *)(pkt + 14);
    uint32_t k = ip->saddr;
    struct entry *e = NULL;
    struct hh *h = tbl.buckets[k & 255];
    if (h != NULL) (e) = (__typeof(e))(ELMT_FROM_HH(&tbl, h));
    while ((e) != NULL) {{
        if (e->hh.key == k) {{
            e->bytes += len;
            break;
        }}
        (e) = (__typeof(e))(ELMT_FROM_HH(&tbl, (e)->hh.next));
    }}
}}"#
    ));
    assert!(f.stateful, "{f:?}");
    assert!(f.pointer_chasing, "{f:?}");
}

#[test]
fn an_include_guard_is_no_debug_switch() {
    // `#ifndef NF_H` / `#define NF_H` wraps the code every build compiles:
    // a macro applied to state inside it is a blind spot as anywhere else
    // (see `a_macro_in_a_debug_only_block_is_no_blind_spot`).
    let f = facts(&format!(
        "#ifndef NF_H
#define NF_H
{MBUF}
#define TRACE(...) trace_emit(__VA_ARGS__)
struct counters {{ uint64_t rx; }};
static struct counters stats;
void main_loop(void) {{
    struct rte_mbuf *pkts[32];
    uint16_t n = rte_eth_rx_burst(0, 0, pkts, 32);
    if (n > 0) TRACE(n, &stats);
    rte_eth_tx_burst(1, 0, pkts, n);
}}
#endif"
    ));
    assert!(f.is_unknown(Question::Stateful), "{f:?}");
}
