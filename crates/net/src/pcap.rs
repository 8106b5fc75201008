//! Classic libpcap files (Ethernet link type only), read and written through
//! the `pcap-file` crate.
//!
//! Reading accepts both byte orders and both the microsecond (`0xa1b2c3d4`)
//! and nanosecond (`0xa1b23c4d`) magics; every malformation (bad magic,
//! truncated global header, truncated record header or body, absurd record
//! length, non-Ethernet link type) is a typed [`PcapError`] naming the record
//! index and byte offset. Records are taken raw (`next_raw_packet`): a capture
//! whose original lengths exceed its snap length, as every truncated capture
//! has, is read, not refused. Writing produces nanosecond-resolution files
//! that tcpdump and Wireshark read.

use crate::packets::Packets;
use pcap_file::pcap::{PcapHeader, PcapParser, RawPcapPacket};
use pcap_file::{DataLink, Endianness, TsResolution};
use std::borrow::Cow;
use std::io::{self, Write};
use std::path::Path;

/// DLT_EN10MB.
pub const LINKTYPE_ETHERNET: u32 = 1;
/// Largest record body accepted (tcpdump's maximum snap length).
pub const MAX_RECORD_LEN: u32 = 262_144;
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
    /// pcap-file refused the file for a reason none of the above names.
    #[error("invalid pcap at byte {offset}: {message}")]
    Invalid { offset: usize, message: String },
}

/// Parse a whole pcap file held in memory.
pub fn parse_pcap(bytes: &[u8]) -> Result<Packets, PcapError> {
    let (mut rest, parser) = PcapParser::new(bytes).map_err(|e| match e {
        pcap_file::PcapError::IncompleteBuffer => {
            PcapError::TruncatedGlobalHeader { len: bytes.len() }
        }
        pcap_file::PcapError::InvalidField(_) => PcapError::BadMagic {
            found: u32::from_le_bytes(bytes[0..4].try_into().unwrap_or_default()),
        },
        other => PcapError::Invalid {
            offset: 0,
            message: other.to_string(),
        },
    })?;
    let header = parser.header();
    let linktype = u32::from(header.datalink) & 0x0fff_ffff;
    if linktype != LINKTYPE_ETHERNET {
        return Err(PcapError::UnsupportedLinkType { linktype });
    }
    let nanos = header.ts_resolution == TsResolution::NanoSecond;
    let rd = |b: &[u8]| -> u32 {
        let a: [u8; 4] = [b[0], b[1], b[2], b[3]];
        match header.endianness {
            Endianness::Big => u32::from_be_bytes(a),
            Endianness::Little => u32::from_le_bytes(a),
        }
    };
    // The file size bounds the arena size, so reserving it avoids regrowth.
    let mut packets = Packets::with_capacity(bytes.len() / 80, bytes.len());
    let mut index = 0usize;
    while !rest.is_empty() {
        let offset = bytes.len() - rest.len();
        let raw = match parser.next_raw_packet(rest) {
            Ok((next, raw)) => {
                rest = next;
                raw
            }
            Err(pcap_file::PcapError::IncompleteBuffer) if rest.len() < RECORD_HEADER_LEN => {
                return Err(PcapError::TruncatedRecordHeader { index, offset })
            }
            Err(pcap_file::PcapError::IncompleteBuffer) => {
                let need = rd(&rest[8..12]);
                let have = rest.len() - RECORD_HEADER_LEN;
                return Err(if need > MAX_RECORD_LEN {
                    PcapError::RecordTooLarge {
                        index,
                        offset,
                        len: need,
                    }
                } else {
                    PcapError::TruncatedRecord {
                        index,
                        offset,
                        need,
                        have,
                    }
                });
            }
            Err(e) => {
                return Err(PcapError::Invalid {
                    offset,
                    message: format!("record {index}: {e}"),
                })
            }
        };
        if raw.incl_len > MAX_RECORD_LEN {
            return Err(PcapError::RecordTooLarge {
                index,
                offset,
                len: raw.incl_len,
            });
        }
        let frac = u64::from(raw.ts_frac) * if nanos { 1 } else { 1000 };
        packets.push(u64::from(raw.ts_sec) * 1_000_000_000 + frac, &raw.data);
        index += 1;
    }
    Ok(packets)
}

/// Read and parse a pcap file.
pub fn read_pcap(path: &Path) -> Result<Packets, PcapError> {
    parse_pcap(&std::fs::read(path)?)
}

fn io_error(e: pcap_file::PcapError) -> io::Error {
    match e {
        pcap_file::PcapError::IoError(e) => e,
        other => io::Error::new(io::ErrorKind::InvalidData, other.to_string()),
    }
}

/// Streams frames into a nanosecond-resolution, little-endian Ethernet pcap.
#[derive(Debug)]
pub struct PcapWriter<W: Write> {
    out: pcap_file::pcap::PcapWriter<W>,
    written: u64,
}

impl<W: Write> PcapWriter<W> {
    /// Write the global header and return the writer.
    pub fn new(out: W) -> io::Result<Self> {
        let header = PcapHeader {
            snaplen: MAX_RECORD_LEN,
            datalink: DataLink::ETHERNET,
            ts_resolution: TsResolution::NanoSecond,
            endianness: Endianness::Little,
            ..PcapHeader::default()
        };
        let out = pcap_file::pcap::PcapWriter::with_header(out, header).map_err(io_error)?;
        Ok(PcapWriter { out, written: 0 })
    }

    /// Append one frame (truncated to [`MAX_RECORD_LEN`] bytes if longer;
    /// seconds past `u32::MAX` are clamped).
    pub fn write_packet(&mut self, ts_ns: u64, data: &[u8]) -> io::Result<()> {
        let len = data.len().min(MAX_RECORD_LEN as usize);
        let raw = RawPcapPacket {
            ts_sec: (ts_ns / 1_000_000_000).min(u64::from(u32::MAX)) as u32,
            ts_frac: (ts_ns % 1_000_000_000) as u32,
            incl_len: len as u32,
            orig_len: data.len().min(u32::MAX as usize) as u32,
            data: Cow::Borrowed(&data[..len]),
        };
        self.out.write_raw_packet(&raw).map_err(io_error)?;
        self.written += 1;
        Ok(())
    }

    /// Frames written so far.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Flush and return the underlying writer.
    pub fn finish(self) -> io::Result<W> {
        let mut out = self.out.into_writer();
        out.flush()?;
        Ok(out)
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
        b.extend_from_slice(&0xa1b2_c3d4u32.to_be_bytes());
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
    fn truncated_captures_whose_original_length_exceeds_the_snap_length_are_read() {
        let mut b = file(&[(5, b"0123456789")]);
        b[16..20].copy_from_slice(&10u32.to_le_bytes()); // snaplen 10
        b[36..40].copy_from_slice(&1514u32.to_le_bytes()); // orig_len
        let p = parse_pcap(&b).unwrap();
        assert_eq!(p.get(0).unwrap().data, b"0123456789");
    }

    #[test]
    fn empty_capture_is_fine() {
        assert!(parse_pcap(&file(&[])).unwrap().is_empty());
    }
}
