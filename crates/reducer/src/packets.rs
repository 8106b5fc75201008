//! Deterministic packet sets for proof by execution. The generator reads the
//! chain's configuration values generically (anything that parses as an IPv4
//! address or prefix becomes an address pool, anything that parses as a port
//! or port range becomes a port pool) and emits frames that hit every pool
//! from inside and outside, over TCP, UDP, ICMP and another IP protocol, plus
//! the odd frames parsers must survive: ARP, IPv6, VLAN tags, fragments,
//! TCP options, bad IHL and truncations at every layer. Every other string
//! value (e.g. a payload pattern, but also keywords) becomes a payload pool:
//! some frames carry it whole, some a near miss. Flows repeat (same 5-tuple,
//! also reversed) so stateful NFs see hits, and the clock sometimes jumps by
//! up to ~30 minutes so timeouts of every scale expire.

use nfc_net::craft::{tcp_flags, write_frame, FrameSpec, L4};
use rand::{Rng as _, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A frame and its timestamp.
#[derive(Debug, Clone)]
pub struct TestPacket {
    pub frame: Vec<u8>,
    pub now_ns: u64,
}

/// The generator's random stream (seeded ChaCha8, as every nfc trace).
struct Rng(ChaCha8Rng);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0.gen()
    }
    /// Uniform in `0..n` (0 when `n` is 0).
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.0.gen_range(0..n)
        }
    }
}

fn parse_ipv4(s: &str) -> Option<u32> {
    let parts: Vec<&str> = s.split('.').collect();
    if parts.len() != 4 {
        return None;
    }
    let mut v = 0u32;
    for p in parts {
        v = (v << 8) | p.parse::<u8>().ok()? as u32;
    }
    Some(v)
}

/// Address pools (addr, mask) and port values found in a configuration.
#[derive(Debug, Default, Clone)]
pub struct Pools {
    pub prefixes: Vec<(u32, u32)>,
    pub ports: Vec<u16>,
    /// Other string values (payload patterns and keywords), 1..=64 bytes.
    pub contents: Vec<Vec<u8>>,
}

/// Scan flattened key/values for addresses, prefixes, ports and ranges.
pub fn pools_from_config(configs: &[&[(String, String)]]) -> Pools {
    let mut pools = Pools::default();
    for cfg in configs {
        for (_, v) in cfg.iter() {
            let v = v.trim();
            let prefix = v.split_once('/').and_then(|(a, l)| {
                let (a, l) = (parse_ipv4(a)?, l.parse::<u32>().ok()?);
                (l <= 32).then_some((a, l))
            });
            if let Some((a, l)) = prefix {
                let mask = if l == 0 { 0 } else { u32::MAX << (32 - l) };
                pools.prefixes.push((a & mask, mask));
            } else if let Some(a) = parse_ipv4(v) {
                pools.prefixes.push((a, u32::MAX));
            } else if let Some((lo, hi)) = v.split_once(['-', ':']).and_then(|(lo, hi)| {
                Some((
                    lo.trim().parse::<u16>().ok()?,
                    hi.trim().parse::<u16>().ok()?,
                ))
            }) {
                pools
                    .ports
                    .extend([lo, hi, lo.saturating_sub(1), hi.saturating_add(1)]);
            } else if let Ok(p) = v.parse::<u32>() {
                if (1..=65535).contains(&p) {
                    let p = p as u16;
                    pools.ports.extend([p, p.saturating_add(1)]);
                }
            } else if !v.is_empty() && v.len() <= 64 && v.parse::<f64>().is_err() {
                pools.contents.push(v.as_bytes().to_vec());
            }
        }
    }
    pools.prefixes.sort();
    pools.prefixes.dedup();
    pools.ports.sort();
    pools.ports.dedup();
    pools.contents.sort();
    pools.contents.dedup();
    pools
}

struct Spec {
    src: u32,
    dst: u32,
    proto: u8,
    sport: u16,
    dport: u16,
    tos: u8,
    vlan: bool,
    frag: bool,
    tcp_opts: bool,
    payload: usize,
    /// Bytes placed into the payload at `content_at` (the payload grows to fit).
    content: Vec<u8>,
    content_at: usize,
}

/// The frame of `s`, laid out by nfc-net's frame writer (valid checksums).
fn build(s: &Spec) -> Vec<u8> {
    let l4 = match s.proto {
        6 => L4::Tcp {
            sport: s.sport,
            dport: s.dport,
            flags: tcp_flags::SYN | tcp_flags::ACK,
            seq: 1,
            ack: 0,
        },
        17 => L4::Udp {
            sport: s.sport,
            dport: s.dport,
        },
        1 => L4::Icmp {
            ty: 8,
            code: 0,
            id: 1,
            seq: 1,
        },
        proto => L4::Raw { proto },
    };
    let spec = FrameSpec {
        src_mac: [0x02, 0, 0, 0, 0, 0x02],
        dst_mac: [0x02, 0, 0, 0, 0, 0x01],
        vlan: s.vlan.then_some(5),
        src_ip: s.src,
        dst_ip: s.dst,
        ttl: 64,
        ip_id: 0x1234,
        frag_offset: if s.frag { 0x10 } else { 0 },
        tos: s.tos,
        tcp_option_words: if s.tcp_opts { 3 } else { 0 },
        l4,
    };
    let payload_len = s.payload.max(if s.content.is_empty() {
        0
    } else {
        s.content_at + s.content.len()
    });
    let mut payload: Vec<u8> = (0..payload_len).map(|i| (i * 7) as u8).collect();
    payload[s.content_at.min(payload_len)..][..s.content.len()].copy_from_slice(&s.content);
    let mut frame = vec![];
    write_frame(&mut frame, &spec, &payload, 0);
    frame
}

/// Protocol weights of generated traffic, and whether to add malformed frames.
#[derive(Debug, Clone, Copy)]
pub struct Mix {
    pub tcp: u64,
    pub udp: u64,
    pub icmp: u64,
    pub other: u64,
    /// Truncations, fragments, VLAN tags and the fixed odd frames.
    pub malformed: bool,
}

impl Default for Mix {
    fn default() -> Self {
        Mix {
            tcp: 4,
            udp: 3,
            icmp: 2,
            other: 1,
            malformed: true,
        }
    }
}

/// Generate `count` frames (plus a fixed set of malformed ones) from pools.
pub fn generate(pools: &Pools, count: usize, seed: u64) -> Vec<TestPacket> {
    generate_mix(pools, count, seed, Mix::default())
}

/// Generate `count` frames with the given protocol mix.
pub fn generate_mix(pools: &Pools, count: usize, seed: u64, mix: Mix) -> Vec<TestPacket> {
    let mut rng = Rng(ChaCha8Rng::seed_from_u64(seed));
    let mut out = vec![];
    let pick_addr = |rng: &mut Rng| -> u32 {
        if pools.prefixes.is_empty() || rng.below(4) == 0 {
            return rng.next() as u32;
        }
        let (a, m) = pools.prefixes[rng.below(pools.prefixes.len() as u64) as usize];
        match rng.below(3) {
            0 => a,
            1 => a | (rng.next() as u32 & !m),
            _ => (a | (rng.next() as u32 & !m)) ^ (1u32 << rng.below(32)),
        }
    };
    let pick_port = |rng: &mut Rng| -> u16 {
        if pools.ports.is_empty() || rng.below(3) == 0 {
            return rng.next() as u16;
        }
        pools.ports[rng.below(pools.ports.len() as u64) as usize]
    };
    let mut flows: Vec<(u32, u32, u8, u16, u16)> = vec![];
    let mut now_ns = 0u64;
    for _ in 0..count {
        now_ns += 1_000_000;
        // Sometimes the clock jumps (1 ns .. ~30 min) so idle timeouts of any scale expire.
        if rng.below(40) == 0 {
            let bits = rng.below(41);
            now_ns += rng.below(1u64 << bits);
        }
        let total = (mix.tcp + mix.udp + mix.icmp + mix.other).max(1);
        let r = rng.below(total);
        let proto = if r < mix.tcp {
            6
        } else if r < mix.tcp + mix.udp {
            17
        } else if r < mix.tcp + mix.udp + mix.icmp {
            1
        } else {
            47
        };
        let odd = mix.malformed;
        let (mut src, mut dst, mut sport, mut dport) = (
            pick_addr(&mut rng),
            pick_addr(&mut rng),
            pick_port(&mut rng),
            pick_port(&mut rng),
        );
        // Repeat an earlier flow of the same protocol (or its reverse direction).
        if !flows.is_empty() && rng.below(3) == 0 {
            let f = flows[rng.below(flows.len() as u64) as usize];
            if f.2 == proto {
                (src, dst, sport, dport) = if rng.below(4) == 0 {
                    (f.1, f.0, f.4, f.3)
                } else {
                    (f.0, f.1, f.3, f.4)
                };
            }
        }
        flows.push((src, dst, proto, sport, dport));
        // A payload pattern whole, or a near miss (last byte cut or changed).
        let mut content = vec![];
        if !pools.contents.is_empty() && rng.below(3) == 0 {
            content = pools.contents[rng.below(pools.contents.len() as u64) as usize].clone();
            match rng.below(4) {
                0 => {
                    content.pop();
                }
                1 => {
                    if let Some(b) = content.last_mut() {
                        *b ^= 0x20;
                    }
                }
                _ => {}
            }
        }
        let spec = Spec {
            src,
            dst,
            proto,
            sport,
            dport,
            tos: (rng.next() & 0xff) as u8,
            vlan: odd && rng.below(16) == 0,
            frag: odd && rng.below(20) == 0,
            tcp_opts: rng.below(8) == 0,
            payload: rng.below(64) as usize,
            content_at: rng.below(24) as usize,
            content,
        };
        let mut frame = build(&spec);
        // Truncate a few frames at a random point (runts, cut headers).
        if odd && rng.below(25) == 0 {
            let cut = rng.below(frame.len() as u64) as usize;
            frame.truncate(cut);
        }
        out.push(TestPacket { frame, now_ns });
    }
    if !mix.malformed {
        return out;
    }
    // Fixed odd frames: ARP, IPv6/TCP, bad IHL, bad version, runts.
    let mut arp = vec![0xff; 6];
    arp.extend([0x02, 0, 0, 0, 0, 3, 0x08, 0x06, 0, 1, 8, 0, 6, 4, 0, 1]);
    arp.extend([0u8; 20]);
    let mut v6 = vec![
        0x02, 0, 0, 0, 0, 0x01, 0x02, 0, 0, 0, 0, 0x02, 0x86, 0xdd, 0x60, 0, 0, 0, 0, 20, 6, 64,
    ];
    v6.extend([0u8; 32]);
    v6.extend([
        0, 80, 1, 187, 0, 0, 0, 1, 0, 0, 0, 0, 0x50, 0x02, 0xff, 0xff, 0, 0, 0, 0,
    ]);
    let mut bad_ihl = build(&Spec {
        src: 1,
        dst: 2,
        proto: 6,
        sport: 1,
        dport: 2,
        tos: 0,
        vlan: false,
        frag: false,
        tcp_opts: false,
        payload: 0,
        content: vec![],
        content_at: 0,
    });
    bad_ihl[14] = 0x43;
    let mut bad_ver = bad_ihl.clone();
    bad_ver[14] = 0x65;
    for (k, frame) in [arp, v6, bad_ihl, bad_ver, vec![], vec![0u8; 13]]
        .into_iter()
        .enumerate()
    {
        out.push(TestPacket {
            frame,
            now_ns: now_ns + 1_000_000 * (k as u64 + 1),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pools_come_from_prefixes_addresses_ports_and_ranges() {
        let cfg = vec![
            ("rules.0.src".to_string(), "10.0.0.0/8".to_string()),
            ("rules.0.dst".to_string(), "8.8.8.8".to_string()),
            ("rules.0.dport".to_string(), "80-90".to_string()),
            ("rules.1.dport".to_string(), "22".to_string()),
            ("rules.1.action".to_string(), "drop".to_string()),
        ];
        let p = pools_from_config(&[&cfg]);
        assert_eq!(
            p.prefixes,
            vec![(0x0808_0808, u32::MAX), (0x0a00_0000, 0xff00_0000)]
        );
        for port in [22, 23, 79, 80, 90, 91] {
            assert!(p.ports.contains(&port), "{port}");
        }
        assert_eq!(p.contents, vec![b"drop".to_vec()]);
    }

    #[test]
    fn colon_ranges_and_payload_patterns_reach_the_frames() {
        let cfg = vec![
            ("rules.0.dst_port".to_string(), "1:1023".to_string()),
            ("rules.0.content".to_string(), "/bin/sh".to_string()),
        ];
        let p = pools_from_config(&[&cfg]);
        for port in [1, 1023, 1024] {
            assert!(p.ports.contains(&port), "{port}");
        }
        let pkts = generate(&p, 600, 3);
        let carrying = pkts
            .iter()
            .filter(|t| t.frame.windows(7).any(|w| w == b"/bin/sh"))
            .count();
        assert!(carrying > 30, "{carrying}");
        // Flows repeat, and the clock is monotonic with some jumps.
        assert!(pkts.windows(2).all(|w| w[0].now_ns < w[1].now_ns));
        assert!(pkts
            .windows(2)
            .any(|w| w[1].now_ns - w[0].now_ns > 10_000_000));
    }

    #[test]
    fn mix_controls_protocols_and_is_deterministic() {
        let p = Pools::default();
        let a = generate_mix(
            &p,
            400,
            7,
            Mix {
                tcp: 1,
                udp: 1,
                icmp: 0,
                other: 0,
                malformed: false,
            },
        );
        let b = generate_mix(
            &p,
            400,
            7,
            Mix {
                tcp: 1,
                udp: 1,
                icmp: 0,
                other: 0,
                malformed: false,
            },
        );
        assert_eq!(a.len(), 400);
        assert!(a.iter().zip(&b).all(|(x, y)| x.frame == y.frame));
        let udp = a.iter().filter(|p| p.frame[23] == 17).count();
        assert!(udp > 120 && udp < 280, "{udp}");
        assert!(a.iter().all(|p| p.frame[23] == 17 || p.frame[23] == 6));
    }
}
