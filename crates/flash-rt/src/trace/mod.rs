//! The synthetic trace generator behind chain.yaml's `traffic:` section and
//! `nfc trace gen`, plus the trace plumbing the executor shares with it
//! ([`Packets`], [`pcap`], [`craft`]).
//!
//! A trace is a deterministic function of its [`TrafficSpec`] (all randomness
//! comes from a ChaCha8 stream seeded with `spec.seed`): a set of distinct
//! flows (5-tuples) whose addresses come from pools drawn inside the source
//! and destination prefixes, a protocol per flow drawn from the TCP/UDP/ICMP
//! shares, Zipf(`zipf`) flow popularity, per-packet sizes from the size mix,
//! and, for a `bidirectional` share of the flows, alternating forward and
//! reverse packets. TCP flows start with SYN (and SYN-ACK on the reverse
//! side) and carry increasing sequence numbers; every frame has correct IPv4
//! and transport checksums.

pub use nfc_net::packets::{Packet, Packets};
pub use nfc_net::{craft, pcap};

use craft::{mac_for_ip, tcp_flags, write_frame, FrameSpec, L4};
use nfc_core::chain::{SizeMix, TrafficSpec};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::{HashMap, HashSet};
use std::io;
use std::path::{Path, PathBuf};

/// Why a trace could not be generated.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The spec is inconsistent; `field` names the offending `traffic:` key.
    #[error("invalid traffic spec: `{field}`: {message}")]
    Invalid {
        field: &'static str,
        message: String,
    },
    /// The output file could not be written.
    #[error("cannot write trace {path}: {source}")]
    Io { path: PathBuf, source: io::Error },
}

/// When packets happen: the first timestamp and the gap between packets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceTiming {
    /// Timestamp of the first packet, ns since the Unix epoch.
    pub start_ns: u64,
    /// Inter-packet gap in ns (1000 = an aggregate 1 Mpps).
    pub gap_ns: u64,
}

impl Default for TraceTiming {
    fn default() -> Self {
        TraceTiming {
            start_ns: 1_700_000_000_000_000_000,
            gap_ns: 1000,
        }
    }
}

/// What a generated trace contains.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceSummary {
    pub packets: u64,
    pub bytes: u64,
    /// Flows defined (not all need to appear in short traces).
    pub flows: u32,
    /// Flows that appear at least once.
    pub active_flows: u32,
    pub tcp_packets: u64,
    pub udp_packets: u64,
    pub icmp_packets: u64,
    /// Packets sent in the reverse direction of their flow.
    pub reverse_packets: u64,
    pub src_hosts: u32,
    pub dst_hosts: u32,
    pub first_ts_ns: u64,
    pub last_ts_ns: u64,
    /// Packets of the most popular flow.
    pub top_flow_packets: u64,
    /// SHA-256 over frames (as [`Packets::digest`]).
    pub digest: String,
}

/// Largest frame the generator writes (jumbo Ethernet without FCS).
pub const MAX_FRAME: u32 = 9018;
const IMIX: [(u32, u32); 3] = [(64, 7), (594, 4), (1518, 1)];
const TCP_MIN: u32 = 54;
const UDP_ICMP_MIN: u32 = 42;

fn invalid(field: &'static str, message: impl Into<String>) -> TraceError {
    TraceError::Invalid {
        field,
        message: message.into(),
    }
}

/// Parse "a.b.c.d/len" or "a.b.c.d" (/32) into (network base, length).
fn parse_prefix(field: &'static str, s: &str) -> Result<(u32, u8), TraceError> {
    let bad = || {
        invalid(
            field,
            format!("`{s}` is not an IPv4 prefix like 10.0.0.0/8"),
        )
    };
    let t = s.trim();
    let (addr, len) = match t.split_once('/') {
        Some((a, l)) => (
            a,
            l.parse::<u8>().ok().filter(|l| *l <= 32).ok_or_else(bad)?,
        ),
        None => (t, 32),
    };
    let ip: std::net::Ipv4Addr = addr.parse().map_err(|_| bad())?;
    let mask = if len == 0 {
        0
    } else {
        u32::MAX << (32 - u32::from(len))
    };
    Ok((u32::from(ip) & mask, len))
}

/// Check a spec without generating anything.
pub fn validate(spec: &TrafficSpec) -> Result<(), TraceError> {
    if spec.flows == 0 {
        return Err(invalid("flows", "must be at least 1"));
    }
    if !spec.zipf.is_finite() || spec.zipf < 0.0 {
        return Err(invalid(
            "zipf",
            format!("must be a finite number >= 0, got {}", spec.zipf),
        ));
    }
    for (name, v) in [
        ("tcp", spec.tcp),
        ("udp", spec.udp),
        ("icmp", spec.icmp),
        ("bidirectional", spec.bidirectional),
    ] {
        if !v.is_finite() || !(0.0..=1.0).contains(&v) {
            return Err(invalid(
                name,
                format!("must be a share between 0 and 1, got {v}"),
            ));
        }
    }
    let sum = spec.tcp + spec.udp + spec.icmp;
    if (sum - 1.0).abs() > 1e-6 {
        return Err(invalid(
            "tcp",
            format!("protocol shares tcp + udp + icmp must sum to 1, got {sum}"),
        ));
    }
    let min = if spec.tcp > 0.0 {
        TCP_MIN
    } else {
        UDP_ICMP_MIN
    };
    let check_size = |s: u32| -> Result<(), TraceError> {
        if s < min || s > MAX_FRAME {
            return Err(invalid(
                "sizes",
                format!("frame size {s} is outside {min}..={MAX_FRAME} (headers of the chosen protocols need {min} bytes)"),
            ));
        }
        Ok(())
    };
    match &spec.sizes {
        SizeMix::Fixed(s) => check_size(*s)?,
        SizeMix::Imix => {}
        SizeMix::Weighted(items) => {
            if items.is_empty() || items.iter().all(|(_, w)| *w == 0) {
                return Err(invalid(
                    "sizes",
                    "a weighted size mix needs at least one size with a weight > 0",
                ));
            }
            for (s, _) in items {
                check_size(*s)?;
            }
        }
    }
    for (field, prefix, hosts) in [
        ("src_prefix", &spec.src_prefix, spec.src_hosts),
        ("dst_prefix", &spec.dst_prefix, spec.dst_hosts),
    ] {
        let (_, len) = parse_prefix(field, prefix)?;
        let size = 1u64 << (32 - u32::from(len));
        if u64::from(hosts) > size {
            return Err(invalid(
                if field == "src_prefix" {
                    "src_hosts"
                } else {
                    "dst_hosts"
                },
                format!("{hosts} hosts do not fit in {prefix} ({size} addresses)"),
            ));
        }
    }
    Ok(())
}

/// Draw `n` distinct offsets from `0..size` (sparse Fisher-Yates).
fn distinct_offsets(rng: &mut ChaCha8Rng, n: u32, size: u64) -> Vec<u32> {
    let mut swapped: HashMap<u64, u64> = HashMap::new();
    let mut out = Vec::with_capacity(n as usize);
    for i in 0..u64::from(n).min(size) {
        let j = rng.gen_range(i..size);
        let vj = *swapped.get(&j).unwrap_or(&j);
        let vi = *swapped.get(&i).unwrap_or(&i);
        swapped.insert(j, vi);
        out.push(vj as u32);
    }
    out
}

/// An address pool: `hosts` distinct addresses from a prefix, or (hosts = 0)
/// up to one per flow.
fn pool(rng: &mut ChaCha8Rng, (base, len): (u32, u8), hosts: u32, flows: u32) -> Vec<u32> {
    let size = 1u64 << (32 - u32::from(len));
    let n = if hosts == 0 {
        u64::from(flows).min(size) as u32
    } else {
        hosts
    };
    distinct_offsets(rng, n, size)
        .into_iter()
        .map(|o| base.wrapping_add(o))
        .collect()
}

#[derive(Debug, Clone, Copy)]
struct Flow {
    src: u32,
    dst: u32,
    sport: u16,
    dport: u16,
    l4: u8, // 0 tcp, 1 udp, 2 icmp
    bidirectional: bool,
    sent: u32,
    seq_fwd: u32,
    seq_rev: u32,
}

/// The flows and samplers of a trace, built from a validated spec.
struct Plan {
    flows: Vec<Flow>,
    zipf_cdf: Vec<f64>,
    sizes: Vec<(u32, f64)>, // (size, cumulative probability)
    src_hosts: u32,
    dst_hosts: u32,
}

fn cumulative(weights: impl Iterator<Item = f64>) -> Vec<f64> {
    let mut acc = 0.0;
    let mut v: Vec<f64> = weights
        .map(|w| {
            acc += w;
            acc
        })
        .collect();
    let total = acc;
    for x in &mut v {
        *x /= total;
    }
    v
}

fn sample(cdf: &[f64], u: f64) -> usize {
    cdf.partition_point(|&c| c <= u).min(cdf.len() - 1)
}

fn plan(spec: &TrafficSpec, rng: &mut ChaCha8Rng) -> Result<Plan, TraceError> {
    validate(spec)?;
    let src_prefix = parse_prefix("src_prefix", &spec.src_prefix)?;
    let dst_prefix = parse_prefix("dst_prefix", &spec.dst_prefix)?;
    let srcs = pool(rng, src_prefix, spec.src_hosts, spec.flows);
    let dsts = pool(rng, dst_prefix, spec.dst_hosts, spec.flows);
    let proto_cdf = cumulative([spec.tcp, spec.udp, spec.icmp].into_iter());
    let mut seen: HashSet<(u32, u32, u16, u16, u8)> = HashSet::with_capacity(spec.flows as usize);
    let mut flows = Vec::with_capacity(spec.flows as usize);
    for i in 0..spec.flows as usize {
        let l4 = sample(&proto_cdf, rng.gen::<f64>()) as u8;
        let bidirectional = rng.gen::<f64>() < spec.bidirectional;
        // With one host per flow (hosts = 0) flow i uses pool entry i, so
        // sources and destinations are as distinct as the prefixes allow.
        let pick = |pool: &[u32], hosts: u32, rng: &mut ChaCha8Rng| {
            if hosts == 0 {
                pool[i % pool.len()]
            } else {
                pool[rng.gen_range(0..pool.len())]
            }
        };
        let src = pick(&srcs, spec.src_hosts, rng);
        let dst = pick(&dsts, spec.dst_hosts, rng);
        let mut found = None;
        for _ in 0..64 {
            let (sport, dport) = if l4 == 2 {
                (rng.gen::<u16>(), 0) // ICMP: the echo identifier distinguishes flows
            } else {
                (rng.gen_range(1024..=65535), rng.gen_range(1..=65535))
            };
            if seen.insert((src, dst, sport, dport, l4)) {
                found = Some((sport, dport));
                break;
            }
        }
        let (sport, dport) = found.ok_or_else(|| {
            invalid(
                "flows",
                format!(
                    "cannot make {} distinct flows from the configured host pools",
                    spec.flows
                ),
            )
        })?;
        flows.push(Flow {
            src,
            dst,
            sport,
            dport,
            l4,
            bidirectional,
            sent: 0,
            seq_fwd: rng.gen(),
            seq_rev: rng.gen(),
        });
    }
    let zipf_cdf = cumulative((1..=spec.flows).map(|k| 1.0 / f64::from(k).powf(spec.zipf)));
    let size_weights: Vec<(u32, u32)> = match &spec.sizes {
        SizeMix::Fixed(s) => vec![(*s, 1)],
        SizeMix::Imix => IMIX.to_vec(),
        SizeMix::Weighted(items) => items.iter().copied().filter(|(_, w)| *w > 0).collect(),
    };
    let cdf = cumulative(size_weights.iter().map(|(_, w)| f64::from(*w)));
    let sizes = size_weights.iter().map(|(s, _)| *s).zip(cdf).collect();
    let distinct = |v: &[u32]| v.iter().collect::<HashSet<_>>().len() as u32;
    let used_src: Vec<u32> = flows.iter().map(|f| f.src).collect();
    let used_dst: Vec<u32> = flows.iter().map(|f| f.dst).collect();
    Ok(Plan {
        src_hosts: distinct(&used_src),
        dst_hosts: distinct(&used_dst),
        flows,
        zipf_cdf,
        sizes,
    })
}

/// Generate the trace, handing each frame to `sink` in order.
fn generate_into(
    spec: &TrafficSpec,
    timing: TraceTiming,
    mut sink: impl FnMut(u64, &[u8]) -> io::Result<()>,
) -> Result<TraceSummary, TraceError> {
    let mut rng = ChaCha8Rng::seed_from_u64(spec.seed);
    let mut plan = plan(spec, &mut rng)?;
    let mut s = TraceSummary {
        packets: 0,
        bytes: 0,
        flows: spec.flows,
        active_flows: 0,
        tcp_packets: 0,
        udp_packets: 0,
        icmp_packets: 0,
        reverse_packets: 0,
        src_hosts: plan.src_hosts,
        dst_hosts: plan.dst_hosts,
        first_ts_ns: timing.start_ns,
        last_ts_ns: timing.start_ns,
        top_flow_packets: 0,
        digest: String::new(),
    };
    let mut digest = Sha256::new();
    let mut frame = Vec::with_capacity(MAX_FRAME as usize);
    let size_cdf: Vec<f64> = plan.sizes.iter().map(|(_, c)| *c).collect();
    for i in 0..spec.packets {
        let fi = sample(&plan.zipf_cdf, rng.gen::<f64>());
        let size = plan.sizes[sample(&size_cdf, rng.gen::<f64>())].0 as usize;
        let f = &mut plan.flows[fi];
        let reverse = f.bidirectional && f.sent % 2 == 1;
        let first_of_direction = if f.bidirectional {
            f.sent < 2
        } else {
            f.sent == 0
        };
        let (src, dst, sport, dport) = if reverse {
            (f.dst, f.src, f.dport, f.sport)
        } else {
            (f.src, f.dst, f.sport, f.dport)
        };
        let hdr = match f.l4 {
            0 => TCP_MIN,
            _ => UDP_ICMP_MIN,
        } as usize;
        let payload_len = size.saturating_sub(hdr) as u32;
        let l4 = match f.l4 {
            0 => {
                let flags = match (first_of_direction, reverse) {
                    (true, false) => tcp_flags::SYN,
                    (true, true) => tcp_flags::SYN | tcp_flags::ACK,
                    _ => tcp_flags::ACK | if payload_len > 0 { tcp_flags::PSH } else { 0 },
                };
                let (seq, ack) = if reverse {
                    (f.seq_rev, f.seq_fwd)
                } else {
                    (f.seq_fwd, f.seq_rev)
                };
                let advance = if first_of_direction { 1 } else { payload_len };
                if reverse {
                    f.seq_rev = f.seq_rev.wrapping_add(advance);
                } else {
                    f.seq_fwd = f.seq_fwd.wrapping_add(advance);
                }
                s.tcp_packets += 1;
                L4::Tcp {
                    sport,
                    dport,
                    flags,
                    seq,
                    ack: if first_of_direction && !reverse {
                        0
                    } else {
                        ack
                    },
                }
            }
            1 => {
                s.udp_packets += 1;
                L4::Udp { sport, dport }
            }
            _ => {
                s.icmp_packets += 1;
                let ty = if reverse { 0 } else { 8 };
                L4::Icmp {
                    ty,
                    code: 0,
                    id: f.sport,
                    seq: (f.sent / 2) as u16,
                }
            }
        };
        let fs = FrameSpec {
            src_mac: mac_for_ip(src),
            dst_mac: mac_for_ip(dst),
            vlan: None,
            src_ip: src,
            dst_ip: dst,
            ttl: 64,
            ip_id: f.sent as u16,
            frag_offset: 0,
            tos: 0,
            tcp_option_words: 0,
            l4,
        };
        if f.sent == 0 {
            s.active_flows += 1;
        }
        f.sent += 1;
        if reverse {
            s.reverse_packets += 1;
        }
        write_frame(&mut frame, &fs, &[], size);
        let ts = timing
            .start_ns
            .saturating_add(i.saturating_mul(timing.gap_ns));
        s.last_ts_ns = ts;
        s.packets += 1;
        s.bytes += frame.len() as u64;
        digest.update((frame.len() as u32).to_le_bytes());
        digest.update(&frame);
        sink(ts, &frame).map_err(|e| TraceError::Io {
            path: PathBuf::new(),
            source: e,
        })?;
    }
    s.top_flow_packets = plan
        .flows
        .iter()
        .map(|f| u64::from(f.sent))
        .max()
        .unwrap_or(0);
    s.digest = hex::encode(digest.finalize());
    Ok(s)
}

/// Generate the trace in memory with the default timing (1 Mpps from a fixed epoch).
pub fn generate_packets(spec: &TrafficSpec) -> Result<(Packets, TraceSummary), TraceError> {
    generate_packets_with(spec, TraceTiming::default())
}

/// Generate the trace in memory with explicit timing.
pub fn generate_packets_with(
    spec: &TrafficSpec,
    timing: TraceTiming,
) -> Result<(Packets, TraceSummary), TraceError> {
    validate(spec)?;
    let avg = match &spec.sizes {
        SizeMix::Fixed(s) => *s as usize,
        _ => 400,
    };
    let n = spec.packets.min(1 << 26) as usize;
    let mut packets = Packets::with_capacity(n, n.saturating_mul(avg));
    let summary = generate_into(spec, timing, |ts, f| {
        packets.push(ts, f);
        Ok(())
    })?;
    Ok((packets, summary))
}

/// Generate the trace into a pcap file at `out` (default timing).
pub fn generate(spec: &TrafficSpec, out: &Path) -> Result<TraceSummary, TraceError> {
    generate_with(spec, TraceTiming::default(), out)
}

/// Generate the trace into a pcap file at `out` with explicit timing.
pub fn generate_with(
    spec: &TrafficSpec,
    timing: TraceTiming,
    out: &Path,
) -> Result<TraceSummary, TraceError> {
    validate(spec)?;
    let io_err = |source| TraceError::Io {
        path: out.to_path_buf(),
        source,
    };
    let file = std::fs::File::create(out).map_err(io_err)?;
    let mut w = pcap::PcapWriter::new(io::BufWriter::new(file)).map_err(io_err)?;
    let summary =
        generate_into(spec, timing, |ts, f| w.write_packet(ts, f)).map_err(|e| match e {
            TraceError::Io { source, .. } => TraceError::Io {
                path: out.to_path_buf(),
                source,
            },
            e => e,
        })?;
    w.finish().map_err(io_err)?;
    Ok(summary)
}

#[cfg(test)]
mod tests;
