//! Software RSS: the Toeplitz hash a NIC computes over chosen header fields,
//! and the redirection table (RETA) that maps the hash to a queue (here a
//! worker thread). The offline executor uses it to partition packets exactly
//! as a NIC programmed with the placer's plan would.
//!
//! Hash input is the chosen fields in a fixed order, each in network byte
//! order: src_ip (4), dst_ip (4), src_port (2), dst_port (2), proto (1),
//! src_mac (6), dst_mac (6). This is the Microsoft RSS order for the IPv4 and
//! port fields. A field the frame lacks (ports of ICMP or of a non-first
//! fragment, IPs of a non-IPv4 frame) hashes as zero bytes, so every packet
//! of a flow still lands on one queue. The queue is `reta[hash % reta.len()]`
//! (NICs index with the low bits; with a power-of-two table this is the same).

use nfc_core::facts::Field;

/// The well-known 40-byte Toeplitz key from Microsoft's RSS specification
/// (the default of most NIC drivers).
pub const MICROSOFT_KEY: [u8; 40] = [
    0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0,
    0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c,
    0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
];

/// Default RETA size (most 10/25G NICs).
pub const DEFAULT_RETA_SIZE: usize = 128;

/// Largest hash input: every field of [`Field::ALL`].
pub const MAX_INPUT: usize = 4 + 4 + 2 + 2 + 1 + 6 + 6;

/// Why an RSS configuration is unusable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RssError {
    /// The key is shorter than the hash input plus 4 bytes.
    #[error(
        "Toeplitz key of {key} bytes is too short for {input} bytes of hash input (need {need})"
    )]
    KeyTooShort {
        key: usize,
        input: usize,
        need: usize,
    },
    /// The RETA is empty.
    #[error("the RSS redirection table is empty")]
    EmptyReta,
    /// A RETA entry names a queue that does not exist.
    #[error("RETA entry {index} points at queue {queue}, but there are only {queues} queues")]
    RetaOutOfRange {
        index: usize,
        queue: u16,
        queues: u32,
    },
}

/// Bytes one field contributes to the hash input.
pub fn field_len(f: Field) -> usize {
    match f {
        Field::SrcIp | Field::DstIp => 4,
        Field::SrcPort | Field::DstPort => 2,
        Field::Proto => 1,
        Field::SrcMac | Field::DstMac => 6,
    }
}

/// Bitwise Toeplitz hash of `input` under `key` (the reference definition).
/// Bits of `input` past `8 * (key.len() - 4)` do not contribute.
pub fn toeplitz(key: &[u8], input: &[u8]) -> u32 {
    let mut result = 0u32;
    if key.len() < 4 {
        return 0;
    }
    let mut window = u32::from_be_bytes([key[0], key[1], key[2], key[3]]);
    for (next, &byte) in (4..).zip(input) {
        let k = key.get(next).copied().unwrap_or(0);
        for bit in 0..8 {
            if byte & (0x80 >> bit) != 0 {
                result ^= window;
            }
            window = (window << 1) | u32::from((k >> (7 - bit)) & 1);
        }
    }
    result
}

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
    /// bounds checks; never fails, missing layers leave zeros.
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

    /// Append the bytes of `field` to `out` at `at`; returns the new length.
    fn put(&self, field: Field, out: &mut [u8; MAX_INPUT], at: usize) -> usize {
        let src: &[u8] = match field {
            Field::SrcIp => &self.src_ip,
            Field::DstIp => &self.dst_ip,
            Field::SrcPort => &self.src_port,
            Field::DstPort => &self.dst_port,
            Field::Proto => std::slice::from_ref(&self.proto),
            Field::SrcMac => &self.src_mac,
            Field::DstMac => &self.dst_mac,
        };
        out[at..at + src.len()].copy_from_slice(src);
        at + src.len()
    }
}

/// Sort and deduplicate fields into hash-input order.
pub fn canonical_fields(fields: &[Field]) -> Vec<Field> {
    let mut v = fields.to_vec();
    v.sort();
    v.dedup();
    v
}

/// A RETA of `size` entries spreading over `queues` queues round-robin.
pub fn default_reta(queues: u32, size: usize) -> Vec<u16> {
    let q = queues.clamp(1, u32::from(u16::MAX) + 1);
    (0..size.max(1)).map(|i| (i as u32 % q) as u16).collect()
}

/// A programmed software RSS unit: fields, key (as per-byte lookup tables)
/// and RETA.
#[derive(Debug, Clone)]
pub struct SoftRss {
    fields: Vec<Field>,
    input_len: usize,
    /// `table[i][b]` is the hash contribution of byte value `b` at input position `i`.
    table: Vec<[u32; 256]>,
    reta: Vec<u16>,
}

impl SoftRss {
    /// Program the unit. `fields` may be in any order (they are hashed in the
    /// canonical order); every RETA entry must be `< queues`.
    pub fn new(
        fields: &[Field],
        key: &[u8],
        reta: Vec<u16>,
        queues: u32,
    ) -> Result<Self, RssError> {
        let fields = canonical_fields(fields);
        let input_len: usize = fields.iter().map(|f| field_len(*f)).sum();
        if key.len() < input_len + 4 {
            return Err(RssError::KeyTooShort {
                key: key.len(),
                input: input_len,
                need: input_len + 4,
            });
        }
        if reta.is_empty() {
            return Err(RssError::EmptyReta);
        }
        if let Some((index, &queue)) = reta
            .iter()
            .enumerate()
            .find(|(_, q)| u32::from(**q) >= queues)
        {
            return Err(RssError::RetaOutOfRange {
                index,
                queue,
                queues,
            });
        }
        let table = (0..input_len)
            .map(|i| {
                let mut t = [0u32; 256];
                for (b, slot) in t.iter_mut().enumerate() {
                    // Hash of a single byte at position i: place it in an input of zeros.
                    let mut input = [0u8; MAX_INPUT];
                    input[i] = b as u8;
                    *slot = toeplitz(key, &input[..=i]);
                }
                t
            })
            .collect();
        Ok(SoftRss {
            fields,
            input_len,
            table,
            reta,
        })
    }

    /// The hashed fields in input order.
    pub fn fields(&self) -> &[Field] {
        &self.fields
    }

    pub fn reta(&self) -> &[u16] {
        &self.reta
    }

    /// The hash input of a frame (the first `n` bytes of the returned array).
    pub fn input(&self, frame: &[u8]) -> ([u8; MAX_INPUT], usize) {
        let ff = FlowFields::parse(frame);
        let mut buf = [0u8; MAX_INPUT];
        let mut n = 0;
        for &f in &self.fields {
            n = ff.put(f, &mut buf, n);
        }
        (buf, n)
    }

    /// Toeplitz hash of a frame's chosen fields.
    pub fn hash(&self, frame: &[u8]) -> u32 {
        let (buf, n) = self.input(frame);
        debug_assert_eq!(n, self.input_len);
        buf[..n]
            .iter()
            .zip(&self.table)
            .fold(0u32, |h, (&b, t)| h ^ t[usize::from(b)])
    }

    /// Queue (worker) a frame is steered to.
    pub fn queue(&self, frame: &[u8]) -> u16 {
        self.reta[self.hash(frame) as usize % self.reta.len()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::craft::PacketBuilder;
    use Field::*;

    /// Microsoft's published verification vectors for the default key:
    /// (src, dst, sport, dport, hash over IPs only, hash over IPs and ports).
    const VECTORS: [(&str, &str, u16, u16, u32, u32); 5] = [
        (
            "66.9.149.187",
            "161.142.100.80",
            2794,
            1766,
            0x323e8fc2,
            0x51ccc178,
        ),
        (
            "199.92.111.2",
            "65.69.140.83",
            14230,
            4739,
            0xd718262a,
            0xc626b0ea,
        ),
        (
            "24.19.198.95",
            "12.22.207.184",
            12898,
            38024,
            0xd2d0a5de,
            0x5c2b394a,
        ),
        (
            "38.27.205.30",
            "209.142.163.6",
            48228,
            2217,
            0x82989176,
            0xafc7327f,
        ),
        (
            "153.39.163.191",
            "202.188.127.2",
            44251,
            1303,
            0x5d1809c5,
            0x10e828a2,
        ),
    ];

    fn check(fields: &[Field], src: &str, dst: &str, sp: u16, dp: u16, expect: u32) {
        let frame = PacketBuilder::tcp(src.parse().unwrap(), dst.parse().unwrap(), sp, dp).build();
        let rss = SoftRss::new(fields, &MICROSOFT_KEY, vec![0], 1).unwrap();
        assert_eq!(rss.hash(&frame), expect, "{fields:?} {src} -> {dst}");
        let (input, n) = rss.input(&frame);
        assert_eq!(
            toeplitz(&MICROSOFT_KEY, &input[..n]),
            expect,
            "reference hash"
        );
    }

    #[test]
    fn microsoft_verification_vectors() {
        for (src, dst, sp, dp, ip_only, with_ports) in VECTORS {
            check(&[SrcIp, DstIp], src, dst, sp, dp, ip_only);
            check(
                &[DstPort, SrcIp, SrcPort, DstIp],
                src,
                dst,
                sp,
                dp,
                with_ports,
            );
        }
    }

    #[test]
    fn table_hash_equals_bitwise_reference_on_random_inputs() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for _ in 0..120 {
            let key: Vec<u8> = (0..rng.gen_range(MAX_INPUT + 4..=52))
                .map(|_| rng.gen())
                .collect();
            let fields: Vec<Field> = Field::ALL
                .iter()
                .copied()
                .filter(|_| rng.gen_bool(0.5))
                .collect();
            let frame: Vec<u8> = (0..rng.gen_range(0..80)).map(|_| rng.gen()).collect();
            let mut ipv4 = frame.clone();
            if ipv4.len() >= 34 {
                ipv4[12..14].copy_from_slice(&[0x08, 0x00]);
                ipv4[14] = 0x45;
            }
            let rss = SoftRss::new(&fields, &key, vec![0], 1).unwrap();
            for f in [&frame, &ipv4] {
                let (input, n) = rss.input(f);
                assert_eq!(rss.hash(f), toeplitz(&key, &input[..n]), "{fields:?}");
            }
        }
    }

    #[test]
    fn symmetric_key_maps_both_directions_together() {
        let key: Vec<u8> = [0x6d, 0x5a].iter().copied().cycle().take(40).collect();
        let rss = SoftRss::new(
            &[SrcIp, DstIp, SrcPort, DstPort],
            &key,
            default_reta(4, 128),
            4,
        )
        .unwrap();
        let a = PacketBuilder::udp(
            "10.0.0.1".parse().unwrap(),
            "10.9.8.7".parse().unwrap(),
            1000,
            53,
        )
        .build();
        let b = PacketBuilder::udp(
            "10.9.8.7".parse().unwrap(),
            "10.0.0.1".parse().unwrap(),
            53,
            1000,
        )
        .build();
        assert_eq!(rss.hash(&a), rss.hash(&b));
    }

    #[test]
    fn bad_configurations_are_rejected() {
        assert_eq!(
            SoftRss::new(&Field::ALL, &MICROSOFT_KEY[..20], vec![0], 1).unwrap_err(),
            RssError::KeyTooShort {
                key: 20,
                input: MAX_INPUT,
                need: MAX_INPUT + 4
            }
        );
        assert_eq!(
            SoftRss::new(&[SrcIp], &MICROSOFT_KEY, vec![], 1).unwrap_err(),
            RssError::EmptyReta
        );
        assert_eq!(
            SoftRss::new(&[SrcIp], &MICROSOFT_KEY, vec![0, 1, 2], 2).unwrap_err(),
            RssError::RetaOutOfRange {
                index: 2,
                queue: 2,
                queues: 2
            }
        );
    }

    #[test]
    fn missing_fields_hash_as_zero_and_runts_do_not_panic() {
        let rss = SoftRss::new(&Field::ALL, &MICROSOFT_KEY, default_reta(2, 128), 2).unwrap();
        for len in 0..60 {
            let f =
                PacketBuilder::tcp("1.2.3.4".parse().unwrap(), "5.6.7.8".parse().unwrap(), 1, 2)
                    .build();
            let _ = rss.queue(&f[..len.min(f.len())]);
        }
        let icmp =
            PacketBuilder::icmp_echo("1.2.3.4".parse().unwrap(), "5.6.7.8".parse().unwrap(), 9, 9)
                .build();
        let ff = FlowFields::parse(&icmp);
        assert_eq!((ff.src_port, ff.dst_port, ff.proto), ([0, 0], [0, 0], 1));
        let frag = PacketBuilder::udp("1.2.3.4".parse().unwrap(), "5.6.7.8".parse().unwrap(), 7, 8)
            .fragment(10)
            .build();
        assert_eq!(FlowFields::parse(&frag).src_port, [0, 0]);
        let tagged =
            PacketBuilder::udp("1.2.3.4".parse().unwrap(), "5.6.7.8".parse().unwrap(), 7, 8)
                .vlan(5)
                .build();
        assert_eq!(FlowFields::parse(&tagged).dst_port, 8u16.to_be_bytes());
    }
}
