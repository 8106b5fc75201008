//! Classic libpcap file reading and writing (Ethernet link type only).
//!
//! The reader accepts both byte orders and both the microsecond
//! (`0xa1b2c3d4`) and nanosecond (`0xa1b23c4d`) magics, and turns every
//! malformation (bad magic, truncated global header, truncated record header
//! or body, absurd record length, non-Ethernet link type) into a typed
//! [`PcapError`] naming the record index and byte offset. The writer emits
//! nanosecond-resolution files that tcpdump and Wireshark read.

use super::packets::Packets;
use std::io::{self, Read, Write};
use std::path::Path;

const MAGIC_US: u32 = 0xa1b2_c3d4;
const MAGIC_NS: u32 = 0xa1b2_3c4d;
/// DLT_EN10MB.
pub const LINKTYPE_ETHERNET: u32 = 1;
/// Largest record body accepted (tcpdump's maximum snap length).
pub const MAX_RECORD_LEN: u32 = 262_144;
const GLOBAL_HEADER_LEN: usize = 24;
const RECORD_HEADER_LEN: usize = 16;

/// Why a pcap file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum PcapError {
    /// The file could not be opened or read.
    #[error("cannot read pcap: {0}")]
    Io(#[from] io::Error),
    /// Fewer than 24 bytes: no complete global header.
    #[error("truncated pcap global header ({len} bytes, need 24)")]
    TruncatedGlobalHeader { len: usize },
    /// The first four bytes are not a libpcap magic number.
    #[error("not a pcap file (magic 0x{found:08x}; pcapng is not supported, convert with `editcap -F pcap`)")]
    BadMagic { found: u32 },
    /// The link type is not Ethernet.
    #[error("unsupported link type {linktype} (only Ethernet, link type 1, is supported)")]
    UnsupportedLinkType { linktype: u32 },
    /// A record header runs past the end of the file.
    #[error("truncated header of record {index} at byte {offset}")]
    TruncatedRecordHeader { index: usize, offset: usize },
    /// A record body runs past the end of the file.
    #[error("truncated record {index} at byte {offset}: header says {need} bytes, {have} remain")]
    TruncatedRecord {
        index: usize,
        offset: usize,
        need: u32,
        have: usize,
    },
    /// A record claims more bytes than any capture can hold.
    #[error("record {index} at byte {offset} claims {len} bytes (more than {MAX_RECORD_LEN})")]
    RecordTooLarge {
        index: usize,
        offset: usize,
        len: u32,
    },
}

/// Parse a whole pcap file held in memory.
pub fn parse_pcap(bytes: &[u8]) -> Result<Packets, PcapError> {
    if bytes.len() < GLOBAL_HEADER_LEN {
        return Err(PcapError::TruncatedGlobalHeader { len: bytes.len() });
    }
    let magic_le = u32::from_le_bytes(bytes[0..4].try_into().unwrap_or_default());
    let magic_be = u32::from_be_bytes(bytes[0..4].try_into().unwrap_or_default());
    let (big_endian, nanos) = match (magic_le, magic_be) {
        (MAGIC_US, _) => (false, false),
        (MAGIC_NS, _) => (false, true),
        (_, MAGIC_US) => (true, false),
        (_, MAGIC_NS) => (true, true),
        _ => return Err(PcapError::BadMagic { found: magic_le }),
    };
    let rd = |b: &[u8]| -> u32 {
        let a: [u8; 4] = [b[0], b[1], b[2], b[3]];
        if big_endian {
            u32::from_be_bytes(a)
        } else {
            u32::from_le_bytes(a)
        }
    };
    let linktype = rd(&bytes[20..24]) & 0x0fff_ffff;
    if linktype != LINKTYPE_ETHERNET {
        return Err(PcapError::UnsupportedLinkType { linktype });
    }
    // The file size bounds the arena size, so reserving it avoids regrowth.
    let mut packets = Packets::with_capacity(bytes.len() / 80, bytes.len());
    let mut off = GLOBAL_HEADER_LEN;
    let mut index = 0usize;
    while off < bytes.len() {
        if bytes.len() - off < RECORD_HEADER_LEN {
            return Err(PcapError::TruncatedRecordHeader { index, offset: off });
        }
        let h = &bytes[off..off + RECORD_HEADER_LEN];
        let (sec, frac, incl) = (rd(&h[0..4]), rd(&h[4..8]), rd(&h[8..12]));
        if incl > MAX_RECORD_LEN {
            return Err(PcapError::RecordTooLarge {
                index,
                offset: off,
                len: incl,
            });
        }
        let body = off + RECORD_HEADER_LEN;
        let have = bytes.len() - body;
        if (incl as usize) > have {
            return Err(PcapError::TruncatedRecord {
                index,
                offset: off,
                need: incl,
                have,
            });
        }
        let ts_ns = u64::from(sec) * 1_000_000_000
            + if nanos {
                u64::from(frac)
            } else {
                u64::from(frac) * 1000
            };
        packets.push(ts_ns, &bytes[body..body + incl as usize]);
        off = body + incl as usize;
        index += 1;
    }
    Ok(packets)
}

/// Read and parse a pcap file.
pub fn read_pcap(path: &Path) -> Result<Packets, PcapError> {
    let mut f = std::fs::File::open(path)?;
    let mut bytes = Vec::new();
    f.read_to_end(&mut bytes)?;
    parse_pcap(&bytes)
}

/// Streams frames into a nanosecond-resolution Ethernet pcap.
#[derive(Debug)]
pub struct PcapWriter<W: Write> {
    out: W,
    written: u64,
}

impl<W: Write> PcapWriter<W> {
    /// Write the global header and return the writer.
    pub fn new(mut out: W) -> io::Result<Self> {
        let mut h = [0u8; GLOBAL_HEADER_LEN];
        h[0..4].copy_from_slice(&MAGIC_NS.to_le_bytes());
        h[4..6].copy_from_slice(&2u16.to_le_bytes());
        h[6..8].copy_from_slice(&4u16.to_le_bytes());
        // thiszone and sigfigs stay zero.
        h[16..20].copy_from_slice(&MAX_RECORD_LEN.to_le_bytes());
        h[20..24].copy_from_slice(&LINKTYPE_ETHERNET.to_le_bytes());
        out.write_all(&h)?;
        Ok(PcapWriter { out, written: 0 })
    }

    /// Append one frame (truncated to [`MAX_RECORD_LEN`] bytes if longer).
    pub fn write_packet(&mut self, ts_ns: u64, data: &[u8]) -> io::Result<()> {
        let len = data.len().min(MAX_RECORD_LEN as usize);
        let mut h = [0u8; RECORD_HEADER_LEN];
        let sec = (ts_ns / 1_000_000_000).min(u64::from(u32::MAX)) as u32;
        h[0..4].copy_from_slice(&sec.to_le_bytes());
        h[4..8].copy_from_slice(&((ts_ns % 1_000_000_000) as u32).to_le_bytes());
        h[8..12].copy_from_slice(&(len as u32).to_le_bytes());
        h[12..16].copy_from_slice(&(data.len().min(u32::MAX as usize) as u32).to_le_bytes());
        self.out.write_all(&h)?;
        self.out.write_all(&data[..len])?;
        self.written += 1;
        Ok(())
    }

    /// Frames written so far.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Flush and return the underlying writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Write all of `packets` to a new pcap file at `path`.
pub fn write_pcap(path: &Path, packets: &Packets) -> io::Result<()> {
    let f = std::fs::File::create(path)?;
    let mut w = PcapWriter::new(io::BufWriter::new(f))?;
    for p in packets.iter() {
        w.write_packet(p.ts_ns, p.data)?;
    }
    w.finish()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(records: &[(u64, &[u8])]) -> Vec<u8> {
        let mut w = PcapWriter::new(Vec::new()).unwrap();
        for (ts, d) in records {
            w.write_packet(*ts, d).unwrap();
        }
        w.finish().unwrap()
    }

    #[test]
    fn round_trip_keeps_frames_and_nanosecond_timestamps() {
        let bytes = file(&[
            (1_500_000_000_123_456_789, b"abcdefghijklmn"),
            (1_500_000_001_000_000_001, b"xy"),
        ]);
        let p = parse_pcap(&bytes).unwrap();
        assert_eq!(p.len(), 2);
        assert_eq!(p.get(0).unwrap().ts_ns, 1_500_000_000_123_456_789);
        assert_eq!(p.get(0).unwrap().data, b"abcdefghijklmn");
        assert_eq!(p.get(1).unwrap().data, b"xy");
    }

    #[test]
    fn reads_big_endian_microsecond_files() {
        let mut b = vec![];
        b.extend_from_slice(&MAGIC_US.to_be_bytes());
        b.extend_from_slice(&2u16.to_be_bytes());
        b.extend_from_slice(&4u16.to_be_bytes());
        b.extend_from_slice(&[0; 8]);
        b.extend_from_slice(&65535u32.to_be_bytes());
        b.extend_from_slice(&1u32.to_be_bytes());
        b.extend_from_slice(&7u32.to_be_bytes());
        b.extend_from_slice(&5u32.to_be_bytes());
        b.extend_from_slice(&3u32.to_be_bytes());
        b.extend_from_slice(&3u32.to_be_bytes());
        b.extend_from_slice(b"abc");
        let p = parse_pcap(&b).unwrap();
        assert_eq!(p.get(0).unwrap().ts_ns, 7_000_005_000);
        assert_eq!(p.get(0).unwrap().data, b"abc");
    }

    fn check_err(bytes: &[u8], expect: &str) {
        let e = parse_pcap(bytes).unwrap_err().to_string();
        assert!(
            e.contains(expect),
            "error `{e}` does not contain `{expect}`"
        );
    }

    #[test]
    fn malformed_files_are_typed_errors() {
        let good = file(&[(1, b"0123456789")]);
        check_err(&good[..10], "truncated pcap global header");
        check_err(
            &[
                0x0a, 0x0d, 0x0d, 0x0a, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            ],
            "not a pcap",
        );
        check_err(&good[..30], "truncated header of record 0 at byte 24");
        check_err(&good[..good.len() - 1], "truncated record 0");
        let mut big = good.clone();
        big[32..36].copy_from_slice(&(MAX_RECORD_LEN + 1).to_le_bytes());
        check_err(&big, "claims");
        let mut linktype = good.clone();
        linktype[20..24].copy_from_slice(&101u32.to_le_bytes());
        check_err(&linktype, "unsupported link type 101");
    }

    #[test]
    fn empty_capture_is_fine() {
        assert!(parse_pcap(&file(&[])).unwrap().is_empty());
    }
}
