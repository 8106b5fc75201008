//! The Toeplitz hash NICs compute for receive-side scaling, the Microsoft
//! reference key and its published verification vectors (the one copy of
//! them), and a byte-table form of the hash for hot loops.

/// The well-known 40-byte Toeplitz key from Microsoft's RSS specification
/// (the default of most NIC drivers).
pub const MICROSOFT_KEY: [u8; 40] = [
    0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0,
    0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c,
    0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
];

/// One verification vector of Microsoft's RSS specification for
/// [`MICROSOFT_KEY`]: source address and port, destination address and port,
/// the hash of the IPv4-only input (`src_ip|dst_ip`) and of the IPv4+TCP
/// input (`src_ip|dst_ip|src_port|dst_port`).
#[derive(Debug, Clone, Copy)]
pub struct RssVector {
    pub src: [u8; 4],
    pub sport: u16,
    pub dst: [u8; 4],
    pub dport: u16,
    pub hash_l3: u32,
    pub hash_l4: u32,
}

/// Microsoft's published verification suite (IPv4).
pub const MICROSOFT_VECTORS: [RssVector; 5] = [
    v(
        [66, 9, 149, 187],
        2794,
        [161, 142, 100, 80],
        1766,
        0x323e_8fc2,
        0x51cc_c178,
    ),
    v(
        [199, 92, 111, 2],
        14230,
        [65, 69, 140, 83],
        4739,
        0xd718_262a,
        0xc626_b0ea,
    ),
    v(
        [24, 19, 198, 95],
        12898,
        [12, 22, 207, 184],
        38024,
        0xd2d0_a5de,
        0x5c2b_394a,
    ),
    v(
        [38, 27, 205, 30],
        48228,
        [209, 142, 163, 6],
        2217,
        0x8298_9176,
        0xafc7_327f,
    ),
    v(
        [153, 39, 163, 191],
        44251,
        [202, 188, 127, 2],
        1303,
        0x5d18_09c5,
        0x10e8_28a2,
    ),
];

const fn v(src: [u8; 4], sport: u16, dst: [u8; 4], dport: u16, l3: u32, l4: u32) -> RssVector {
    RssVector {
        src,
        sport,
        dst,
        dport,
        hash_l3: l3,
        hash_l4: l4,
    }
}

/// Bit `i` of `key` (bit 0 = MSB of byte 0); bits past the key are zero.
pub fn key_bit(key: &[u8], i: usize) -> bool {
    key.get(i / 8)
        .is_some_and(|b| (b >> (7 - (i % 8))) & 1 == 1)
}

/// The 32-bit key window starting at bit `i`: what an input bit at position
/// `i` XORs into the hash when set.
pub fn window(key: &[u8], i: usize) -> u32 {
    (0..32).fold(0u32, |w, p| (w << 1) | u32::from(key_bit(key, i + p)))
}

/// The Toeplitz hash of `input` under `key` (the reference algorithm: for
/// each set input bit, XOR the current 32-bit key window, then slide by one
/// bit). Keys shorter than `input.len() + 4` bytes are padded with zeros.
pub fn toeplitz(key: &[u8], input: &[u8]) -> u32 {
    let mut w = window(key, 0);
    let mut hash = 0u32;
    for (byte_index, byte) in input.iter().enumerate() {
        for bit in 0..8 {
            if byte & (0x80 >> bit) != 0 {
                hash ^= w;
            }
            w = (w << 1) | u32::from(key_bit(key, byte_index * 8 + bit + 32));
        }
    }
    hash
}

/// The Toeplitz hash for inputs of a fixed length as per-position byte
/// tables: `table[i][b]` is what byte value `b` at input position `i`
/// contributes, so a hash is one lookup and XOR per input byte.
#[derive(Debug, Clone)]
pub struct ToeplitzTable {
    tables: Vec<[u32; 256]>,
}

impl ToeplitzTable {
    /// Tables for inputs of up to `input_len` bytes under `key`.
    pub fn new(key: &[u8], input_len: usize) -> Self {
        let tables = (0..input_len)
            .map(|pos| {
                let windows: Vec<u32> = (0..8).map(|bit| window(key, pos * 8 + bit)).collect();
                let mut t = [0u32; 256];
                for (value, slot) in t.iter_mut().enumerate() {
                    *slot = (0..8)
                        .filter(|bit| value & (0x80 >> bit) != 0)
                        .fold(0, |acc, bit| acc ^ windows[bit]);
                }
                t
            })
            .collect();
        ToeplitzTable { tables }
    }

    /// Input bytes the tables cover.
    pub fn input_len(&self) -> usize {
        self.tables.len()
    }

    /// The hash of `input` (bytes past [`Self::input_len`] do not count).
    pub fn hash(&self, input: &[u8]) -> u32 {
        input
            .iter()
            .zip(&self.tables)
            .fold(0u32, |h, (&b, t)| h ^ t[usize::from(b)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_vectors_of_the_microsoft_key() {
        let table = ToeplitzTable::new(&MICROSOFT_KEY, 12);
        for t in MICROSOFT_VECTORS {
            let mut input = vec![];
            input.extend_from_slice(&t.src);
            input.extend_from_slice(&t.dst);
            assert_eq!(toeplitz(&MICROSOFT_KEY, &input), t.hash_l3, "L3 {t:?}");
            assert_eq!(table.hash(&input), t.hash_l3, "L3 table {t:?}");
            input.extend_from_slice(&t.sport.to_be_bytes());
            input.extend_from_slice(&t.dport.to_be_bytes());
            assert_eq!(toeplitz(&MICROSOFT_KEY, &input), t.hash_l4, "L4 {t:?}");
            assert_eq!(table.hash(&input), t.hash_l4, "L4 table {t:?}");
        }
    }

    #[test]
    fn tables_equal_the_bitwise_hash_on_pseudo_random_inputs() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for _ in 0..200 {
            let key: Vec<u8> = (0..rng.gen_range(4..54)).map(|_| rng.gen()).collect();
            let input: Vec<u8> = (0..rng.gen_range(0..40)).map(|_| rng.gen()).collect();
            let table = ToeplitzTable::new(&key, input.len());
            assert_eq!(
                table.hash(&input),
                toeplitz(&key, &input),
                "{key:?} {input:?}"
            );
        }
    }
}
