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
struct rte_mbuf { void *buf_addr; uint16_t port; uint64_t dynfield1[9]; };
struct rte_ether_addr { uint8_t addr_bytes[6]; };
struct rte_ether_hdr { struct rte_ether_addr dst_addr; struct rte_ether_addr src_addr; uint16_t ether_type; };
#define rte_pktmbuf_mtod(m, t) ((t)((char *)(m)->buf_addr))
uint16_t rte_eth_rx_burst(uint16_t port, uint16_t q, struct rte_mbuf **pkts, uint16_t n);
uint16_t rte_eth_tx_burst(uint16_t port, uint16_t q, struct rte_mbuf **pkts, uint16_t n);
"#;

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
    let src = |guard: &str| {
        format!(
            "{MBUF}
{guard}
#define LOG(...) do {{}} while (0)
struct counters {{ uint64_t rx; }};
static struct counters stats;
void main_loop(void) {{
    struct rte_mbuf *pkts[32];
    uint16_t n = rte_eth_rx_burst(0, 0, pkts, 32);
#ifdef NF_DEBUG
    if (n > 0) LOG(\"got %u, %p\", n, &stats);
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
