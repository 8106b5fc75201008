//! Toeplitz RSS key synthesis (after Maestro, NSDI'24): build a 40/52-byte
//! key and an indirection table (RETA) so that the NIC's hash depends only on
//! the chosen header fields, and maps both directions of a connection to one
//! queue when a symmetric hash is required.
//!
//! The Toeplitz hash XORs, for every set bit `i` of the hash input, the 32-bit
//! window of key bits `i ..= i+31`. A field therefore leaves the hash alone
//! exactly when every window its bits select is zero, i.e. the key bits
//! `start ..= end+30` of that field are zero ("mind the sliding window"): this
//! also zeroes parts of the windows of the *neighbouring* fields, which is why
//! some field sets cannot be realised at all (e.g. `{src_port}` alone in the
//! L4 layout) and why `{src_ip}` alone reaches the RETA index only through the
//! top bits of the address. Symmetry (`hash(a→b) == hash(b→a)`) needs the
//! windows of mirrored bits to be equal, i.e. key bits at a distance of 32
//! (addresses) and 16 (ports) equal, the classic repeating-`0x6d5a` key.
//!
//! The constraints are equalities between key bits (and with zero), so the
//! synthesiser groups key bits into classes with a union-find, assigns one bit
//! per class (first the well-known Microsoft / `0x6d5a` pattern, then seeded
//! pseudo-random assignments) and keeps the first key whose map from the
//! hashed fields to the RETA index has full rank over GF(2). A key whose rank
//! stays low is reported as degenerate instead of being emitted.

use crate::traffic::PacketHeader;
use nfc_core::facts::Field;
use nfc_net::rss::{key_bit as get_bit, window, ToeplitzTable, MICROSOFT_KEY};

/// The Toeplitz hash (one implementation, in nfc-net).
pub use nfc_net::rss::toeplitz as toeplitz_hash;

/// Key length in bytes for most NICs (Intel 82599/X710, virtio).
pub const KEY40: usize = 40;
/// Key length in bytes for NICs with a longer key (Intel E810, mlx5).
pub const KEY52: usize = 52;

/// How the NIC forms the Toeplitz input from a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum RssInputMode {
    /// The NIC hashes the standard tuple of the selected hash type:
    /// `src_ip|dst_ip` (L3, 8 bytes) or `src_ip|dst_ip|src_port|dst_port`
    /// (L4, 12 bytes). Fields outside the chosen set are neutralised by zero
    /// key bits. Works on every Toeplitz NIC.
    #[default]
    Tuple,
    /// The NIC feeds only the selected fields, in tuple order (DPDK
    /// `RTE_ETH_RSS_L3_SRC_ONLY` / `L4_DST_ONLY` style input sets, E810, mlx5).
    FieldSelect,
}

/// Why a field set cannot be realised by a Toeplitz key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// None of the requested fields is part of the Toeplitz input (MACs and
    /// the protocol are not hashed by RSS), so every packet would hash alike.
    #[error("no field of {{{fields}}} is part of the Toeplitz input (only src_ip, dst_ip, src_port, dst_port are)")]
    NoHashableField { fields: String },
    /// A symmetric hash was requested for a field set not closed under the
    /// src<->dst mirror.
    #[error("a symmetric hash needs a field set closed under src<->dst; {{{fields}}} is not")]
    NotMirrorClosed { fields: String },
    /// The constraints leave too few free key bits: the RETA index would take
    /// fewer distinct values than needed to spread flows.
    #[error("the key for {{{fields}}}{sym} is degenerate: the RETA index spans {rank} bit(s), {needed} needed")]
    Degenerate {
        fields: String,
        sym: &'static str,
        rank: u32,
        needed: u32,
    },
    /// The RETA size is not a power of two between 1 and 65536.
    #[error("RETA size {0} is not a power of two in 1..=65536")]
    BadRetaSize(u32),
}

/// One field's place in the hash input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldSlot {
    pub field: Field,
    /// First bit of the field in the input (bit 0 = MSB of byte 0).
    pub offset: u32,
    pub width: u32,
}

/// A synthesised RSS configuration with everything needed to hash packets as
/// the NIC would.
#[derive(Debug, Clone, PartialEq)]
pub struct RssConfig {
    /// Fields asked for that the Toeplitz input can carry, sorted.
    pub requested: Vec<Field>,
    /// Fields the queue actually depends on (some bit reaches the RETA
    /// index), sorted; a subset of `requested`, which only makes the hash
    /// coarser and therefore safe for every NF whose key covers `requested`.
    pub fields: Vec<Field>,
    pub symmetric: bool,
    pub mode: RssInputMode,
    /// The hash input layout (fields in the input, including neutralised ones).
    pub layout: Vec<FieldSlot>,
    pub key40: Vec<u8>,
    pub key52: Vec<u8>,
    pub reta: Vec<u16>,
    /// Rank over GF(2) of the map from the hashed fields to the RETA index.
    pub rank: u32,
    /// Per hashed field, how many of its bits reach the RETA index.
    pub influence: Vec<(Field, u32)>,
}

/// The fields the Toeplitz input can carry, in input order, with widths.
const TUPLE_FIELDS: [(Field, u32); 4] = [
    (Field::SrcIp, 32),
    (Field::DstIp, 32),
    (Field::SrcPort, 16),
    (Field::DstPort, 16),
];

/// Fields of `fields` that a Toeplitz hash can depend on (sorted, deduplicated).
pub fn hashable(fields: &[Field]) -> Vec<Field> {
    let mut out: Vec<Field> = TUPLE_FIELDS
        .iter()
        .map(|(f, _)| *f)
        .filter(|f| fields.contains(f))
        .collect();
    out.sort();
    out
}

/// True when `fields` maps onto itself under src<->dst.
pub fn mirror_closed(fields: &[Field]) -> bool {
    fields.iter().all(|f| fields.contains(&f.mirror()))
}

fn fields_text(fields: &[Field]) -> String {
    fields
        .iter()
        .map(|f| f.name())
        .collect::<Vec<_>>()
        .join(",")
}

/// The input layout a NIC uses to hash `fields` in `mode`.
pub fn layout_for(fields: &[Field], mode: RssInputMode) -> Vec<FieldSlot> {
    let needs_l4 = fields
        .iter()
        .any(|f| matches!(f, Field::SrcPort | Field::DstPort));
    let mut offset = 0;
    let mut out = vec![];
    for (field, width) in TUPLE_FIELDS {
        let included = match mode {
            RssInputMode::Tuple => needs_l4 || matches!(field, Field::SrcIp | Field::DstIp),
            RssInputMode::FieldSelect => fields.contains(&field),
        };
        if included {
            out.push(FieldSlot {
                field,
                offset,
                width,
            });
            offset += width;
        }
    }
    out
}

/// Serialise the header into the hash input for `layout`.
pub fn input_bytes(layout: &[FieldSlot], h: &PacketHeader) -> Vec<u8> {
    let mut out = Vec::with_capacity(12);
    for slot in layout {
        match slot.field {
            Field::SrcIp => out.extend_from_slice(&h.src_ip.to_be_bytes()),
            Field::DstIp => out.extend_from_slice(&h.dst_ip.to_be_bytes()),
            Field::SrcPort => out.extend_from_slice(&h.src_port.to_be_bytes()),
            Field::DstPort => out.extend_from_slice(&h.dst_port.to_be_bytes()),
            // Not part of any layout (see TUPLE_FIELDS).
            Field::Proto | Field::SrcMac | Field::DstMac => {}
        }
    }
    out
}

/// A precomputed hasher for one key and layout (byte-indexed lookup tables),
/// used to hash whole traffic profiles quickly.
#[derive(Debug, Clone)]
pub struct Hasher {
    layout: Vec<FieldSlot>,
    table: ToeplitzTable,
    reta: Vec<u16>,
}

impl Hasher {
    pub fn new(key: &[u8], layout: &[FieldSlot], reta: &[u16]) -> Self {
        let input_len = layout.iter().map(|s| s.width).sum::<u32>() as usize / 8;
        Hasher {
            layout: layout.to_vec(),
            table: ToeplitzTable::new(key, input_len),
            reta: reta.to_vec(),
        }
    }

    pub fn hash(&self, h: &PacketHeader) -> u32 {
        let mut input = [0u8; 12];
        let mut n = 0;
        for slot in &self.layout {
            let bytes: &[u8] = match slot.field {
                Field::SrcIp => &h.src_ip.to_be_bytes(),
                Field::DstIp => &h.dst_ip.to_be_bytes(),
                Field::SrcPort => &h.src_port.to_be_bytes(),
                Field::DstPort => &h.dst_port.to_be_bytes(),
                Field::Proto | Field::SrcMac | Field::DstMac => &[],
            };
            input[n..n + bytes.len()].copy_from_slice(bytes);
            n += bytes.len();
        }
        self.table.hash(&input[..n])
    }

    /// The queue the NIC delivers the packet to (RETA indexed by the hash's low bits).
    pub fn queue(&self, h: &PacketHeader) -> u16 {
        if self.reta.is_empty() {
            return 0;
        }
        self.reta[self.hash(h) as usize & (self.reta.len() - 1)]
    }
}

impl RssConfig {
    pub fn hasher(&self) -> Hasher {
        Hasher::new(&self.key52, &self.layout, &self.reta)
    }
}

/// Union-find over key bit positions plus one extra node meaning "zero".
struct Classes {
    parent: Vec<usize>,
}

impl Classes {
    fn new(n: usize) -> Self {
        Classes {
            parent: (0..n).collect(),
        }
    }
    fn find(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }
    fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            // Keep the smaller index as the root so the zero node (index 0) wins.
            let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
            self.parent[hi] = lo;
        }
    }
}

/// Rank over GF(2) of a set of row vectors.
fn gf2_rank(mut rows: Vec<u32>) -> u32 {
    let mut rank = 0;
    for bit in (0..32).rev() {
        let mask = 1u32 << bit;
        let Some(pivot) = rows.iter().position(|r| r & mask != 0) else {
            continue;
        };
        let p = rows.swap_remove(pivot);
        for r in rows.iter_mut() {
            if *r & mask != 0 {
                *r ^= p;
            }
        }
        rank += 1;
    }
    rank
}

/// Deterministic pseudo-random bits (xorshift64*), so keys are reproducible.
struct BitSource(u64);

impl BitSource {
    fn next_bit(&mut self) -> bool {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 63) == 1
    }
}

/// The RETA-index rows: for each input bit of a hashed field, the low
/// `reta_bits` bits of its key window.
fn index_rows(
    key: &[u8],
    layout: &[FieldSlot],
    hashed: &[Field],
    reta_bits: u32,
) -> Vec<(Field, u32)> {
    let mut rows = vec![];
    for slot in layout.iter().filter(|s| hashed.contains(&s.field)) {
        for b in 0..slot.width {
            let i = (slot.offset + b) as usize;
            let window = window(key, i);
            let low = if reta_bits >= 32 {
                window
            } else {
                window & ((1u32 << reta_bits) - 1)
            };
            rows.push((slot.field, low));
        }
    }
    rows
}

/// Synthesise a key and RETA so the hash depends only on `fields` (those of
/// them a Toeplitz input can carry), symmetric when asked, spreading over
/// `queues` queues with a RETA of `reta_size` entries.
pub fn synthesize(
    fields: &[Field],
    symmetric: bool,
    mode: RssInputMode,
    queues: u32,
    reta_size: u32,
) -> Result<RssConfig, KeyError> {
    if reta_size == 0 || !reta_size.is_power_of_two() || reta_size > 65536 {
        return Err(KeyError::BadRetaSize(reta_size));
    }
    let hashed = hashable(fields);
    if hashed.is_empty() {
        return Err(KeyError::NoHashableField {
            fields: fields_text(fields),
        });
    }
    if symmetric && !mirror_closed(&hashed) {
        return Err(KeyError::NotMirrorClosed {
            fields: fields_text(&hashed),
        });
    }
    let layout = layout_for(&hashed, mode);
    let key_bits = KEY52 * 8;
    // Node 0 is "zero"; key bit i is node i + 1.
    let mut classes = Classes::new(key_bits + 1);
    for slot in layout.iter().filter(|s| !hashed.contains(&s.field)) {
        for k in slot.offset..slot.offset + slot.width + 31 {
            classes.union(0, k as usize + 1);
        }
    }
    if symmetric {
        for slot in &layout {
            let mirror = slot.field.mirror();
            if mirror <= slot.field {
                continue;
            }
            if let Some(other) = layout.iter().find(|s| s.field == mirror) {
                for m in 0..slot.width + 31 {
                    classes.union(
                        (slot.offset + m) as usize + 1,
                        (other.offset + m) as usize + 1,
                    );
                }
            }
        }
    }
    let reta_bits = reta_size.trailing_zeros();
    let input_bits: u32 = layout
        .iter()
        .filter(|s| hashed.contains(&s.field))
        .map(|s| s.width)
        .sum();
    let dimension = if symmetric {
        input_bits / 2
    } else {
        input_bits
    };
    let needed = reta_bits.min(dimension);

    let pattern_bit = |i: usize| -> bool {
        if symmetric {
            // 0x6d5a repeated: period 16 satisfies every mirror equality.
            (0x6d5au16 >> (15 - (i % 16))) & 1 == 1
        } else {
            get_bit(&MICROSOFT_KEY, i % (MICROSOFT_KEY.len() * 8))
        }
    };
    let mut best: Option<(u32, Vec<u8>)> = None;
    for attempt in 0..64u64 {
        let mut class_value = vec![None::<bool>; key_bits + 1];
        class_value[0] = Some(false);
        let mut bits =
            BitSource(0x9e37_79b9_7f4a_7c15 ^ attempt.wrapping_mul(0xd1b5_4a32_d192_ed03));
        let mut key = vec![0u8; KEY52];
        for i in 0..key_bits {
            let root = classes.find(i + 1);
            let value = match class_value[root] {
                Some(v) => v,
                None => {
                    let v = if attempt == 0 {
                        pattern_bit(root - 1)
                    } else {
                        bits.next_bit()
                    };
                    class_value[root] = Some(v);
                    v
                }
            };
            if value {
                key[i / 8] |= 0x80 >> (i % 8);
            }
        }
        let rank = gf2_rank(
            index_rows(&key, &layout, &hashed, reta_bits)
                .into_iter()
                .map(|(_, r)| r)
                .collect(),
        );
        let better = best.as_ref().is_none_or(|(r, _)| rank > *r);
        if better {
            best = Some((rank, key));
        }
        if rank >= needed {
            break;
        }
    }
    let (rank, key52) = best.expect("at least one attempt ran");
    if rank < needed || rank == 0 {
        return Err(KeyError::Degenerate {
            fields: fields_text(&hashed),
            sym: if symmetric { " (symmetric)" } else { "" },
            rank,
            needed: needed.max(1),
        });
    }
    let rows = index_rows(&key52, &layout, &hashed, reta_bits);
    let influence: Vec<(Field, u32)> = hashed
        .iter()
        .map(|f| {
            (
                *f,
                rows.iter().filter(|(rf, r)| rf == f && *r != 0).count() as u32,
            )
        })
        .collect();
    let effective = influence
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(f, _)| *f)
        .collect();
    let queues = queues.max(1);
    let reta = (0..reta_size).map(|i| (i % queues) as u16).collect();
    Ok(RssConfig {
        requested: hashed,
        fields: effective,
        symmetric,
        mode,
        layout,
        key40: key52[..KEY40].to_vec(),
        key52,
        reta,
        rank,
        influence,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn random_header(rng: &mut ChaCha8Rng) -> PacketHeader {
        PacketHeader {
            src_ip: rng.gen(),
            dst_ip: rng.gen(),
            src_port: rng.gen(),
            dst_port: rng.gen(),
            proto: 6,
        }
    }

    /// Replace the fields of `h` outside `keep` with fresh random values.
    fn perturb_outside(h: &PacketHeader, keep: &[Field], rng: &mut ChaCha8Rng) -> PacketHeader {
        let r = random_header(rng);
        PacketHeader {
            src_ip: if keep.contains(&Field::SrcIp) {
                h.src_ip
            } else {
                r.src_ip
            },
            dst_ip: if keep.contains(&Field::DstIp) {
                h.dst_ip
            } else {
                r.dst_ip
            },
            src_port: if keep.contains(&Field::SrcPort) {
                h.src_port
            } else {
                r.src_port
            },
            dst_port: if keep.contains(&Field::DstPort) {
                h.dst_port
            } else {
                r.dst_port
            },
            proto: if keep.contains(&Field::Proto) {
                h.proto
            } else {
                17
            },
        }
    }

    fn reverse(h: &PacketHeader) -> PacketHeader {
        PacketHeader {
            src_ip: h.dst_ip,
            dst_ip: h.src_ip,
            src_port: h.dst_port,
            dst_port: h.src_port,
            proto: h.proto,
        }
    }

    /// Microsoft's vectors through the placer's layouts and hasher.
    #[test]
    fn reference_vectors_of_the_microsoft_key() {
        for t in nfc_net::rss::MICROSOFT_VECTORS {
            let h = PacketHeader {
                src_ip: u32::from_be_bytes(t.src),
                dst_ip: u32::from_be_bytes(t.dst),
                src_port: t.sport,
                dst_port: t.dport,
                proto: 6,
            };
            let l3 = layout_for(&[Field::SrcIp, Field::DstIp], RssInputMode::Tuple);
            let l4 = layout_for(&Field::FIVE_TUPLE, RssInputMode::Tuple);
            assert_eq!(Hasher::new(&MICROSOFT_KEY, &l3, &[0]).hash(&h), t.hash_l3);
            assert_eq!(Hasher::new(&MICROSOFT_KEY, &l4, &[0]).hash(&h), t.hash_l4);
            assert_eq!(
                toeplitz_hash(&MICROSOFT_KEY, &input_bytes(&l4, &h)),
                t.hash_l4
            );
        }
    }

    #[test]
    fn hasher_tables_agree_with_the_bitwise_hash() {
        let cfg = synthesize(&Field::FIVE_TUPLE, false, RssInputMode::Tuple, 4, 128).unwrap();
        let hasher = cfg.hasher();
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for _ in 0..200 {
            let h = random_header(&mut rng);
            assert_eq!(
                hasher.hash(&h),
                toeplitz_hash(&cfg.key40, &input_bytes(&cfg.layout, &h))
            );
        }
    }

    /// Every (field set, symmetry, mode) the NICs offer: the key either
    /// realises the set (independent of other fields, symmetric when asked,
    /// spreading random tuples evenly) or is reported as unrealisable.
    #[test]
    fn synthesised_keys_depend_only_on_the_chosen_fields() {
        use Field::*;
        let sets: Vec<Vec<Field>> = vec![
            vec![SrcIp],
            vec![DstIp],
            vec![SrcIp, DstIp],
            vec![SrcPort],
            vec![DstPort],
            vec![SrcPort, DstPort],
            vec![SrcIp, SrcPort],
            vec![DstIp, DstPort],
            vec![SrcIp, DstIp, SrcPort, DstPort],
        ];
        let queues = 8u32;
        let mut realised = 0;
        for mode in [RssInputMode::Tuple, RssInputMode::FieldSelect] {
            for set in &sets {
                for symmetric in [false, true] {
                    let result = synthesize(set, symmetric, mode, queues, 128);
                    if symmetric && !mirror_closed(set) {
                        assert!(matches!(result, Err(KeyError::NotMirrorClosed { .. })));
                        continue;
                    }
                    let cfg = match result {
                        Ok(cfg) => cfg,
                        Err(KeyError::Degenerate { .. }) => continue,
                        Err(e) => panic!("{set:?} {symmetric} {mode:?}: {e}"),
                    };
                    realised += 1;
                    assert_eq!(cfg.key40.len(), 40);
                    assert_eq!(cfg.key52.len(), 52);
                    assert_eq!(&cfg.key52[..40], &cfg.key40[..]);
                    assert!(!cfg.fields.is_empty() && cfg.fields.iter().all(|f| set.contains(f)));
                    let hasher = cfg.hasher();
                    let mut rng = ChaCha8Rng::seed_from_u64(11);
                    let mut counts = vec![0u64; queues as usize];
                    let samples = 8000;
                    for _ in 0..samples {
                        let h = random_header(&mut rng);
                        let q = hasher.queue(&h);
                        counts[q as usize] += 1;
                        for _ in 0..3 {
                            let other = perturb_outside(&h, &cfg.fields, &mut rng);
                            assert_eq!(hasher.queue(&other), q, "{set:?} sym={symmetric} {mode:?}");
                        }
                        if symmetric {
                            assert_eq!(
                                hasher.hash(&reverse(&h)),
                                hasher.hash(&h),
                                "{set:?} {mode:?} not symmetric"
                            );
                            assert!(mirror_closed(&cfg.fields));
                        }
                    }
                    // Chi-square over 8 queues (7 degrees of freedom): p=0.001 critical value 24.3.
                    let expected = samples as f64 / queues as f64;
                    let chi2: f64 = counts
                        .iter()
                        .map(|c| (*c as f64 - expected).powi(2) / expected)
                        .sum();
                    assert!(
                        chi2 < 24.3,
                        "{set:?} sym={symmetric} {mode:?}: chi2 {chi2} counts {counts:?}"
                    );
                }
            }
        }
        assert!(realised >= 16, "only {realised} configurations realised");
    }

    #[test]
    fn unrealisable_sets_are_reported() {
        use Field::*;
        // src_port alone in the L4 tuple: dst_port's zero windows cover all of src_port's.
        let e = synthesize(&[SrcPort], false, RssInputMode::Tuple, 4, 128).unwrap_err();
        assert!(matches!(e, KeyError::Degenerate { rank: 0, .. }), "{e}");
        // Symmetric ports-only: the mirror equalities propagate the zeros.
        let e = synthesize(&[SrcPort, DstPort], true, RssInputMode::Tuple, 4, 128).unwrap_err();
        assert!(matches!(e, KeyError::Degenerate { .. }), "{e}");
        let e = synthesize(&[Proto, SrcMac], false, RssInputMode::Tuple, 4, 128).unwrap_err();
        assert!(matches!(e, KeyError::NoHashableField { .. }), "{e}");
        let e = synthesize(&[SrcIp], true, RssInputMode::Tuple, 4, 128).unwrap_err();
        assert!(matches!(e, KeyError::NotMirrorClosed { .. }), "{e}");
        assert_eq!(
            synthesize(&[SrcIp], false, RssInputMode::Tuple, 4, 100).unwrap_err(),
            KeyError::BadRetaSize(100)
        );
    }

    #[test]
    fn src_ip_alone_in_the_tuple_reaches_the_index_through_top_bits_only() {
        // The sliding window forces key bits 32..94 to zero, so the low hash
        // bits only see the most significant bits of src_ip.
        let cfg = synthesize(&[Field::SrcIp], false, RssInputMode::Tuple, 4, 128).unwrap();
        assert_eq!(cfg.influence, vec![(Field::SrcIp, 7)]);
        let hasher = cfg.hasher();
        let a = PacketHeader {
            src_ip: 0x0a00_0001,
            dst_ip: 1,
            src_port: 1,
            dst_port: 2,
            proto: 6,
        };
        let b = PacketHeader {
            src_ip: 0x0a01_ffff,
            ..a
        };
        assert_eq!(hasher.queue(&a), hasher.queue(&b));
        // With a field-select NIC the whole address reaches the index.
        let cfg = synthesize(&[Field::SrcIp], false, RssInputMode::FieldSelect, 4, 128).unwrap();
        assert_eq!(cfg.influence, vec![(Field::SrcIp, 32)]);
    }

    #[test]
    fn symmetric_two_tuple_uses_the_repeating_pattern() {
        let cfg = synthesize(
            &[Field::SrcIp, Field::DstIp],
            true,
            RssInputMode::Tuple,
            4,
            128,
        )
        .unwrap();
        assert_eq!(&cfg.key40[..4], &[0x6d, 0x5a, 0x6d, 0x5a]);
        assert_eq!(cfg.reta.len(), 128);
        assert!(cfg.reta.iter().all(|q| *q < 4));
    }
}
