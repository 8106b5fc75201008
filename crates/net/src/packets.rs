//! [`Packets`]: an in-memory trace stored as one contiguous byte arena plus an
//! index of (offset, length, timestamp). The executor, the pcap reader and the
//! trace generator all use it, so a trace of a million 64-byte frames costs
//! two allocations instead of a million, and workers walk packet data that
//! lies together in memory.

use sha2::{Digest, Sha256};

/// One packet borrowed from a [`Packets`] arena.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Packet<'a> {
    /// Capture timestamp in nanoseconds since the Unix epoch.
    pub ts_ns: u64,
    /// The frame, starting at the Ethernet header.
    pub data: &'a [u8],
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Slot {
    off: usize,
    len: u32,
    ts_ns: u64,
}

/// An ordered list of timestamped frames in one arena.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Packets {
    bytes: Vec<u8>,
    slots: Vec<Slot>,
}

impl Packets {
    pub fn new() -> Self {
        Packets::default()
    }

    /// Reserve room for `packets` frames totalling `bytes` bytes.
    pub fn with_capacity(packets: usize, bytes: usize) -> Self {
        Packets {
            bytes: Vec::with_capacity(bytes),
            slots: Vec::with_capacity(packets),
        }
    }

    /// Append a frame. Frames longer than `u32::MAX` bytes are truncated to it
    /// (pcap cannot represent them either).
    pub fn push(&mut self, ts_ns: u64, data: &[u8]) {
        let len = data.len().min(u32::MAX as usize);
        self.slots.push(Slot {
            off: self.bytes.len(),
            len: len as u32,
            ts_ns,
        });
        self.bytes.extend_from_slice(&data[..len]);
    }

    /// Number of frames.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The `i`-th frame, or `None` past the end.
    pub fn get(&self, i: usize) -> Option<Packet<'_>> {
        let s = self.slots.get(i)?;
        Some(Packet {
            ts_ns: s.ts_ns,
            data: &self.bytes[s.off..s.off + s.len as usize],
        })
    }

    /// Iterate frames in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Packet<'_>> + '_ {
        self.slots.iter().map(move |s| Packet {
            ts_ns: s.ts_ns,
            data: &self.bytes[s.off..s.off + s.len as usize],
        })
    }

    /// Sum of frame lengths.
    pub fn total_bytes(&self) -> u64 {
        self.bytes.len() as u64
    }

    /// Length of the longest frame (0 when empty).
    pub fn max_len(&self) -> usize {
        self.slots.iter().map(|s| s.len as usize).max().unwrap_or(0)
    }

    /// SHA-256 (hex) over every frame as `len (u32 LE) || bytes`, in order.
    /// Timestamps are not included: two runs that emit the same frames in the
    /// same order have the same digest.
    pub fn digest(&self) -> String {
        let mut h = Sha256::new();
        for p in self.iter() {
            h.update((p.data.len() as u32).to_le_bytes());
            h.update(p.data);
        }
        hex::encode(h.finalize())
    }
}
