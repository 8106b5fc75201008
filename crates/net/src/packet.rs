//! Reading the header fields flows, RSS and flow keys look at out of an
//! Ethernet frame: [`FlowFields`] (raw network-order bytes, what a NIC feeds
//! its hash) and [`PacketHeader`] (the IPv4 5-tuple as numbers, what the
//! placer balances and checks plans with).

use nfc_core::facts::Field;
use serde::{Deserialize, Serialize};

/// Header fields of a frame, as raw network-order bytes (zero when absent).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct FlowFields {
    pub src_ip: [u8; 4],
    pub dst_ip: [u8; 4],
    pub src_port: [u8; 2],
    pub dst_port: [u8; 2],
    pub proto: u8,
    pub src_mac: [u8; 6],
    pub dst_mac: [u8; 6],
}

impl FlowFields {
    /// Parse Ethernet (up to two VLAN tags), IPv4 and TCP/UDP ports with
    /// bounds checks; never fails, missing layers leave zeros (the ports of
    /// ICMP and of non-first fragments, the IPs of non-IPv4 frames).
    pub fn parse(frame: &[u8]) -> Self {
        let mut f = FlowFields::default();
        if frame.len() < 14 {
            return f;
        }
        f.dst_mac.copy_from_slice(&frame[0..6]);
        f.src_mac.copy_from_slice(&frame[6..12]);
        let mut off = 12;
        let mut ty = u16::from_be_bytes([frame[12], frame[13]]);
        let mut tags = 0;
        while (ty == 0x8100 || ty == 0x88a8) && tags < 2 {
            if frame.len() < off + 6 {
                return f;
            }
            off += 4;
            ty = u16::from_be_bytes([frame[off], frame[off + 1]]);
            tags += 1;
        }
        off += 2;
        if ty != 0x0800 || frame.len() < off + 20 || frame[off] >> 4 != 4 {
            return f;
        }
        let ihl = usize::from(frame[off] & 0x0f) * 4;
        if ihl < 20 || frame.len() < off + ihl {
            return f;
        }
        f.proto = frame[off + 9];
        f.src_ip.copy_from_slice(&frame[off + 12..off + 16]);
        f.dst_ip.copy_from_slice(&frame[off + 16..off + 20]);
        let frag = u16::from_be_bytes([frame[off + 6], frame[off + 7]]) & 0x1fff;
        let l4 = off + ihl;
        if frag == 0 && (f.proto == 6 || f.proto == 17) && frame.len() >= l4 + 4 {
            f.src_port.copy_from_slice(&frame[l4..l4 + 2]);
            f.dst_port.copy_from_slice(&frame[l4 + 2..l4 + 4]);
        }
        f
    }

    /// The bytes of one field, in network order.
    pub fn field(&self, field: Field) -> &[u8] {
        match field {
            Field::SrcIp => &self.src_ip,
            Field::DstIp => &self.dst_ip,
            Field::SrcPort => &self.src_port,
            Field::DstPort => &self.dst_port,
            Field::Proto => std::slice::from_ref(&self.proto),
            Field::SrcMac => &self.src_mac,
            Field::DstMac => &self.dst_mac,
        }
    }

    /// The IPv4 5-tuple as numbers.
    pub fn header(&self) -> PacketHeader {
        PacketHeader {
            src_ip: u32::from_be_bytes(self.src_ip),
            dst_ip: u32::from_be_bytes(self.dst_ip),
            src_port: u16::from_be_bytes(self.src_port),
            dst_port: u16::from_be_bytes(self.dst_port),
            proto: self.proto,
        }
    }
}

/// The header fields RSS and flow keys look at (IPv4; ports 0 for non-TCP/UDP).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct PacketHeader {
    pub src_ip: u32,
    pub dst_ip: u32,
    pub src_port: u16,
    pub dst_port: u16,
    pub proto: u8,
}

impl PacketHeader {
    /// The 5-tuple of a frame ([`FlowFields::parse`]).
    pub fn from_frame(frame: &[u8]) -> Self {
        FlowFields::parse(frame).header()
    }

    /// The value of one field (MAC fields are not modelled and read as 0).
    pub fn get(&self, field: Field) -> u64 {
        match field {
            Field::SrcIp => u64::from(self.src_ip),
            Field::DstIp => u64::from(self.dst_ip),
            Field::SrcPort => u64::from(self.src_port),
            Field::DstPort => u64::from(self.dst_port),
            Field::Proto => u64::from(self.proto),
            Field::SrcMac | Field::DstMac => 0,
        }
    }

    /// The same connection seen in the other direction.
    pub fn reversed(&self) -> PacketHeader {
        PacketHeader {
            src_ip: self.dst_ip,
            dst_ip: self.src_ip,
            src_port: self.dst_port,
            dst_port: self.src_port,
            proto: self.proto,
        }
    }

    /// The projection of the header on `fields` (in the given order).
    pub fn project(&self, fields: &[Field]) -> Vec<u64> {
        fields.iter().map(|f| self.get(*f)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::craft::PacketBuilder;

    fn ip(s: &str) -> std::net::Ipv4Addr {
        s.parse().unwrap()
    }

    #[test]
    fn missing_layers_read_as_zero_and_runts_do_not_panic() {
        let f = PacketBuilder::tcp(ip("1.2.3.4"), ip("5.6.7.8"), 1, 2).build();
        for len in 0..f.len() {
            let _ = FlowFields::parse(&f[..len]);
        }
        assert_eq!(
            PacketHeader::from_frame(&f),
            PacketHeader {
                src_ip: 0x0102_0304,
                dst_ip: 0x0506_0708,
                src_port: 1,
                dst_port: 2,
                proto: 6
            }
        );
        let icmp = PacketBuilder::icmp_echo(ip("1.2.3.4"), ip("5.6.7.8"), 9, 9).build();
        let ff = FlowFields::parse(&icmp);
        assert_eq!((ff.src_port, ff.dst_port, ff.proto), ([0, 0], [0, 0], 1));
        let frag = PacketBuilder::udp(ip("1.2.3.4"), ip("5.6.7.8"), 7, 8)
            .fragment(10)
            .build();
        assert_eq!(FlowFields::parse(&frag).src_port, [0, 0]);
        let tagged = PacketBuilder::udp(ip("1.2.3.4"), ip("5.6.7.8"), 7, 8)
            .vlan(5)
            .build();
        assert_eq!(FlowFields::parse(&tagged).dst_port, 8u16.to_be_bytes());
        assert_eq!(
            PacketHeader::from_frame(&tagged).reversed(),
            PacketHeader::from_frame(
                &PacketBuilder::udp(ip("5.6.7.8"), ip("1.2.3.4"), 8, 7).build()
            )
        );
    }
}
