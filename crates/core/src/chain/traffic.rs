//! The synthetic traffic description used by chain.yaml's `traffic:` section
//! and by `nfc trace gen`.

use serde::{Deserialize, Serialize};

/// Packet-size distribution.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SizeMix {
    /// Every frame has this many bytes (without FCS), e.g. 64.
    Fixed(u32),
    /// Simple IMIX: 7 x 64, 4 x 594, 1 x 1518 bytes.
    Imix,
    /// Weighted sizes: (bytes, weight).
    Weighted(Vec<(u32, u32)>),
}

/// A synthetic trace: flows with Zipf popularity over a protocol and size mix.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrafficSpec {
    /// Distinct flows (5-tuples).
    pub flows: u32,
    /// Packets in the trace.
    pub packets: u64,
    /// Zipf exponent of flow popularity (0 = uniform).
    pub zipf: f64,
    /// Protocol shares; they must sum to 1.
    pub tcp: f64,
    pub udp: f64,
    pub icmp: f64,
    pub sizes: SizeMix,
    /// Emit reverse-direction packets for a share of the flows (0..=1).
    pub bidirectional: f64,
    /// Source and destination address pools as IPv4 prefixes.
    pub src_prefix: String,
    pub dst_prefix: String,
    /// Distinct source and destination hosts drawn from the prefixes (0 = one per flow).
    pub src_hosts: u32,
    pub dst_hosts: u32,
    pub seed: u64,
}

impl Default for TrafficSpec {
    fn default() -> Self {
        TrafficSpec {
            flows: 1024,
            packets: 100_000,
            zipf: 1.0,
            tcp: 0.8,
            udp: 0.2,
            icmp: 0.0,
            sizes: SizeMix::Fixed(64),
            bidirectional: 0.0,
            src_prefix: "10.0.0.0/8".into(),
            dst_prefix: "192.168.0.0/16".into(),
            src_hosts: 0,
            dst_hosts: 0,
            seed: 1,
        }
    }
}
