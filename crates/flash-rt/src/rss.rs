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

pub use nfc_net::packet::FlowFields;
use nfc_net::rss::ToeplitzTable;
pub use nfc_net::rss::{toeplitz, MICROSOFT_KEY};

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
    table: ToeplitzTable,
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
        let table = ToeplitzTable::new(key, input_len);
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
            let bytes = ff.field(f);
            buf[n..n + bytes.len()].copy_from_slice(bytes);
            n += bytes.len();
        }
        (buf, n)
    }

    /// Toeplitz hash of a frame's chosen fields.
    pub fn hash(&self, frame: &[u8]) -> u32 {
        let (buf, n) = self.input(frame);
        debug_assert_eq!(n, self.input_len);
        self.table.hash(&buf[..n])
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

    fn check(fields: &[Field], src: [u8; 4], dst: [u8; 4], sp: u16, dp: u16, expect: u32) {
        let frame = PacketBuilder::tcp(src.into(), dst.into(), sp, dp).build();
        let rss = SoftRss::new(fields, &MICROSOFT_KEY, vec![0], 1).unwrap();
        assert_eq!(rss.hash(&frame), expect, "{fields:?} {src:?} -> {dst:?}");
        let (input, n) = rss.input(&frame);
        assert_eq!(
            toeplitz(&MICROSOFT_KEY, &input[..n]),
            expect,
            "reference hash"
        );
    }

    /// Microsoft's vectors through frames: parsing, field order and tables.
    #[test]
    fn microsoft_verification_vectors() {
        for t in nfc_net::rss::MICROSOFT_VECTORS {
            check(&[SrcIp, DstIp], t.src, t.dst, t.sport, t.dport, t.hash_l3);
            check(
                &[DstPort, SrcIp, SrcPort, DstIp],
                t.src,
                t.dst,
                t.sport,
                t.dport,
                t.hash_l4,
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
    fn runts_do_not_panic() {
        let rss = SoftRss::new(&Field::ALL, &MICROSOFT_KEY, default_reta(2, 128), 2).unwrap();
        let f = PacketBuilder::tcp("1.2.3.4".parse().unwrap(), "5.6.7.8".parse().unwrap(), 1, 2)
            .build();
        for len in 0..60 {
            let _ = rss.queue(&f[..len.min(f.len())]);
        }
    }
}
