//! The traffic profile the placer balances for: packet header tuples with
//! packet counts (one record per distinct tuple, or per packet). The driver
//! builds it from a pcap or a synthetic trace; the placer hashes every record
//! with each candidate's real Toeplitz key to measure how unevenly the cores
//! would be loaded.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;

pub use nfc_net::packet::PacketHeader;

/// A header tuple and how many packets carried it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowRecord {
    pub header: PacketHeader,
    pub packets: u64,
}

/// Header tuples with packet counts.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TrafficProfile {
    pub records: Vec<FlowRecord>,
}

impl TrafficProfile {
    pub fn new() -> Self {
        TrafficProfile::default()
    }

    /// Aggregate individual packets' headers into records (first-seen order).
    pub fn from_packets<I: IntoIterator<Item = PacketHeader>>(packets: I) -> Self {
        let mut index: HashMap<PacketHeader, usize> = HashMap::new();
        let mut records: Vec<FlowRecord> = vec![];
        for header in packets {
            match index.get(&header) {
                Some(i) => records[*i].packets += 1,
                None => {
                    index.insert(header, records.len());
                    records.push(FlowRecord { header, packets: 1 });
                }
            }
        }
        TrafficProfile { records }
    }

    pub fn push(&mut self, header: PacketHeader, packets: u64) {
        self.records.push(FlowRecord { header, packets });
    }

    pub fn total_packets(&self) -> u64 {
        self.records.iter().map(|r| r.packets).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.total_packets() == 0
    }

    /// Share of all packets on the busiest queue when each record goes to
    /// `queue(header)`, over `queues` queues. An empty profile counts as
    /// perfectly balanced (`1 / queues`).
    pub fn max_share(&self, queues: u32, queue: impl Fn(&PacketHeader) -> u16) -> f64 {
        let queues = queues.max(1) as usize;
        let total = self.total_packets();
        if total == 0 {
            return 1.0 / queues as f64;
        }
        let mut load = vec![0u64; queues];
        for r in &self.records {
            let q = queue(&r.header) as usize % queues;
            load[q] += r.packets;
        }
        *load.iter().max().unwrap_or(&0) as f64 / total as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nfc_core::facts::Field;

    fn h(src_ip: u32, dst_ip: u32) -> PacketHeader {
        PacketHeader {
            src_ip,
            dst_ip,
            src_port: 1000,
            dst_port: 80,
            proto: 6,
        }
    }

    #[test]
    fn from_packets_aggregates_equal_headers() {
        let p = TrafficProfile::from_packets([h(1, 2), h(1, 2), h(3, 4)]);
        assert_eq!(p.records.len(), 2);
        assert_eq!(p.records[0].packets, 2);
        assert_eq!(p.total_packets(), 3);
    }

    #[test]
    fn max_share_counts_packets_per_queue() {
        let mut p = TrafficProfile::new();
        p.push(h(1, 2), 3);
        p.push(h(2, 2), 1);
        assert_eq!(p.max_share(2, |x| (x.src_ip % 2) as u16), 0.75);
        assert_eq!(TrafficProfile::new().max_share(4, |_| 0), 0.25);
    }

    #[test]
    fn reversed_swaps_both_directions() {
        let x = h(1, 2).reversed();
        assert_eq!(
            (x.src_ip, x.dst_ip, x.src_port, x.dst_port),
            (2, 1, 80, 1000)
        );
        assert_eq!(h(5, 6).project(&[Field::DstIp, Field::Proto]), vec![6, 6]);
    }
}
