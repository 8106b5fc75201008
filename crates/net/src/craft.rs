//! Building valid Ethernet/IPv4/TCP|UDP|ICMP frames: [`PacketBuilder`] for
//! tests that need one specific packet, and [`write_frame`] for the trace
//! generator's allocation-free inner loop. Frames carry correct IPv4 header
//! checksums and correct TCP/UDP/ICMP checksums.

use std::net::Ipv4Addr;

/// TCP flag bits (as in `nf.h`).
pub mod tcp_flags {
    pub const FIN: u8 = 0x01;
    pub const SYN: u8 = 0x02;
    pub const RST: u8 = 0x04;
    pub const PSH: u8 = 0x08;
    pub const ACK: u8 = 0x10;
}

const ETH_LEN: usize = 14;
const VLAN_LEN: usize = 4;
const IPV4_LEN: usize = 20;

/// The transport header of a crafted frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum L4 {
    Tcp {
        sport: u16,
        dport: u16,
        flags: u8,
        seq: u32,
        ack: u32,
    },
    Udp {
        sport: u16,
        dport: u16,
    },
    /// ICMP echo-style header (type, code, identifier, sequence).
    Icmp {
        ty: u8,
        code: u8,
        id: u16,
        seq: u16,
    },
    /// No transport header; the IPv4 protocol number is given.
    Raw {
        proto: u8,
    },
}

impl L4 {
    /// IPv4 protocol number.
    pub fn proto(&self) -> u8 {
        match self {
            L4::Tcp { .. } => 6,
            L4::Udp { .. } => 17,
            L4::Icmp { .. } => 1,
            L4::Raw { proto } => *proto,
        }
    }

    /// Bytes of the transport header.
    pub fn header_len(&self) -> usize {
        match self {
            L4::Tcp { .. } => 20,
            L4::Udp { .. } | L4::Icmp { .. } => 8,
            L4::Raw { .. } => 0,
        }
    }
}

/// Everything [`write_frame`] needs to lay out one frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameSpec {
    pub src_mac: [u8; 6],
    pub dst_mac: [u8; 6],
    /// 802.1Q tag (VLAN id) inserted after the MAC addresses.
    pub vlan: Option<u16>,
    pub src_ip: u32,
    pub dst_ip: u32,
    pub ttl: u8,
    pub ip_id: u16,
    /// IPv4 fragment offset in 8-byte units (non-zero makes a non-first fragment).
    pub frag_offset: u16,
    /// IPv4 type of service (DSCP and ECN).
    pub tos: u8,
    /// 4-byte words of TCP options (NOPs) after the fixed TCP header, 0..=10.
    pub tcp_option_words: u8,
    pub l4: L4,
}

impl FrameSpec {
    /// Bytes of the transport header, TCP options included.
    pub fn l4_header_len(&self) -> usize {
        match self.l4 {
            L4::Tcp { .. } => 20 + 4 * usize::from(self.tcp_option_words.min(10)),
            other => other.header_len(),
        }
    }
}

/// Smallest frame that holds the headers of `spec`.
pub fn min_frame_len(spec: &FrameSpec) -> usize {
    ETH_LEN + if spec.vlan.is_some() { VLAN_LEN } else { 0 } + IPV4_LEN + spec.l4_header_len()
}

/// The reply a remote host sends to `frame`, as a closed-loop test needs it:
/// MAC addresses swapped; for IPv4, addresses swapped and, for TCP and UDP
/// (first fragments only), ports swapped; a TCP SYN answered with SYN-ACK and
/// an ICMP echo request with an echo reply. Swapping keeps every checksum
/// valid (the Internet checksum does not depend on word order); the flag and
/// type changes fix theirs incrementally (RFC 1624). Frames too short for a
/// layer keep that layer as is; nothing here can fail.
pub fn reply_frame(frame: &[u8]) -> Vec<u8> {
    let mut f = frame.to_vec();
    if f.len() < ETH_LEN {
        return f;
    }
    for i in 0..6 {
        f.swap(i, 6 + i);
    }
    let mut off = 12;
    let mut ty = u16::from_be_bytes([f[12], f[13]]);
    let mut tags = 0;
    while (ty == 0x8100 || ty == 0x88a8) && tags < 2 {
        if f.len() < off + 6 {
            return f;
        }
        off += 4;
        ty = u16::from_be_bytes([f[off], f[off + 1]]);
        tags += 1;
    }
    off += 2;
    if ty != 0x0800 || f.len() < off + IPV4_LEN || f[off] >> 4 != 4 {
        return f;
    }
    let ihl = usize::from(f[off] & 0x0f) * 4;
    if ihl < IPV4_LEN || f.len() < off + ihl {
        return f;
    }
    for i in 0..4 {
        f.swap(off + 12 + i, off + 16 + i);
    }
    let proto = f[off + 9];
    let frag = u16::from_be_bytes([f[off + 6], f[off + 7]]) & 0x1fff;
    let l4 = off + ihl;
    if frag != 0 {
        return f;
    }
    match proto {
        6 | 17 if f.len() >= l4 + 4 => {
            f.swap(l4, l4 + 2);
            f.swap(l4 + 1, l4 + 3);
            if proto == 6 && f.len() >= l4 + 18 {
                let flags = f[l4 + 13];
                if flags & tcp_flags::SYN != 0 && flags & tcp_flags::ACK == 0 {
                    let old = u16::from_be_bytes([f[l4 + 12], f[l4 + 13]]);
                    f[l4 + 13] = flags | tcp_flags::ACK;
                    let new = u16::from_be_bytes([f[l4 + 12], f[l4 + 13]]);
                    patch_checksum(&mut f, l4 + 16, old, new);
                }
            }
        }
        1 if f.len() >= l4 + 4 && f[l4] == 8 => {
            let old = u16::from_be_bytes([f[l4], f[l4 + 1]]);
            f[l4] = 0;
            let new = u16::from_be_bytes([f[l4], f[l4 + 1]]);
            patch_checksum(&mut f, l4 + 2, old, new);
        }
        _ => {}
    }
    f
}

/// Update the checksum at `at` for one 16-bit word changing from `old` to
/// `new` (RFC 1624: HC' = ~(~HC + ~m + m')).
fn patch_checksum(f: &mut [u8], at: usize, old: u16, new: u16) {
    let hc = u16::from_be_bytes([f[at], f[at + 1]]);
    let sum = u32::from(!hc) + u32::from(!old) + u32::from(new);
    let c = fold(sum);
    f[at..at + 2].copy_from_slice(&c.to_be_bytes());
}

/// Ones'-complement sum of `bytes` as big-endian 16-bit words, not folded.
fn sum16(bytes: &[u8], mut acc: u32) -> u32 {
    let mut chunks = bytes.chunks_exact(2);
    for c in &mut chunks {
        acc += u32::from(u16::from_be_bytes([c[0], c[1]]));
    }
    if let [last] = chunks.remainder() {
        acc += u32::from(*last) << 8;
    }
    acc
}

fn fold(mut acc: u32) -> u16 {
    while acc >> 16 != 0 {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    !(acc as u16)
}

/// The Internet checksum of `bytes` (RFC 1071). A header whose checksum field
/// is correct sums to 0 under this function.
pub fn internet_checksum(bytes: &[u8]) -> u16 {
    fold(sum16(bytes, 0))
}

/// Write one frame of exactly `max(frame_len, min_frame_len(spec) + payload.len())`
/// bytes into `out` (cleared first). Bytes after the headers are `payload`
/// followed by zero padding; the IPv4 total length and UDP length cover
/// everything after the Ethernet header.
pub fn write_frame(out: &mut Vec<u8>, spec: &FrameSpec, payload: &[u8], frame_len: usize) {
    let hdr = min_frame_len(spec);
    let total = frame_len.max(hdr + payload.len());
    out.clear();
    out.resize(total, 0);
    out[0..6].copy_from_slice(&spec.dst_mac);
    out[6..12].copy_from_slice(&spec.src_mac);
    let mut off = 12;
    if let Some(vid) = spec.vlan {
        out[off..off + 2].copy_from_slice(&0x8100u16.to_be_bytes());
        out[off + 2..off + 4].copy_from_slice(&(vid & 0x0fff).to_be_bytes());
        off += 4;
    }
    out[off..off + 2].copy_from_slice(&0x0800u16.to_be_bytes());
    off += 2;
    let l3 = off;
    let ip_len = (total - l3).min(usize::from(u16::MAX)) as u16;
    {
        let ip = &mut out[l3..l3 + IPV4_LEN];
        ip[0] = 0x45;
        ip[1] = spec.tos;
        ip[2..4].copy_from_slice(&ip_len.to_be_bytes());
        ip[4..6].copy_from_slice(&spec.ip_id.to_be_bytes());
        let frag = if spec.frag_offset == 0 {
            0x4000
        } else {
            spec.frag_offset & 0x1fff
        };
        ip[6..8].copy_from_slice(&frag.to_be_bytes());
        ip[8] = spec.ttl;
        ip[9] = spec.l4.proto();
        ip[12..16].copy_from_slice(&spec.src_ip.to_be_bytes());
        ip[16..20].copy_from_slice(&spec.dst_ip.to_be_bytes());
        let c = internet_checksum(ip);
        ip[10..12].copy_from_slice(&c.to_be_bytes());
    }
    let l4 = l3 + IPV4_LEN;
    let l4_end = l3 + usize::from(ip_len);
    let l4_hdr = spec.l4_header_len();
    out[l4 + l4_hdr..l4 + l4_hdr + payload.len()].copy_from_slice(payload);
    if spec.frag_offset != 0 {
        // A non-first fragment carries no transport header; write the payload only.
        return;
    }
    let pseudo = |len: usize| -> u32 {
        let mut acc = sum16(&spec.src_ip.to_be_bytes(), 0);
        acc = sum16(&spec.dst_ip.to_be_bytes(), acc);
        acc + u32::from(spec.l4.proto()) + len as u32
    };
    match spec.l4 {
        L4::Tcp {
            sport,
            dport,
            flags,
            seq,
            ack,
        } => {
            let t = &mut out[l4..l4_end];
            t[0..2].copy_from_slice(&sport.to_be_bytes());
            t[2..4].copy_from_slice(&dport.to_be_bytes());
            t[4..8].copy_from_slice(&seq.to_be_bytes());
            t[8..12].copy_from_slice(&ack.to_be_bytes());
            t[12] = ((l4_hdr / 4) as u8) << 4;
            t[13] = flags;
            t[14..16].copy_from_slice(&65535u16.to_be_bytes());
            t[20..l4_hdr].fill(1); // NOP options
            let c = fold(sum16(t, pseudo(t.len())));
            t[16..18].copy_from_slice(&c.to_be_bytes());
        }
        L4::Udp { sport, dport } => {
            let t = &mut out[l4..l4_end];
            let len = t.len() as u16;
            t[0..2].copy_from_slice(&sport.to_be_bytes());
            t[2..4].copy_from_slice(&dport.to_be_bytes());
            t[4..6].copy_from_slice(&len.to_be_bytes());
            let mut c = fold(sum16(t, pseudo(t.len())));
            if c == 0 {
                c = 0xffff;
            }
            t[6..8].copy_from_slice(&c.to_be_bytes());
        }
        L4::Icmp { ty, code, id, seq } => {
            let t = &mut out[l4..l4_end];
            t[0] = ty;
            t[1] = code;
            t[4..6].copy_from_slice(&id.to_be_bytes());
            t[6..8].copy_from_slice(&seq.to_be_bytes());
            let c = internet_checksum(t);
            t[2..4].copy_from_slice(&c.to_be_bytes());
        }
        L4::Raw { .. } => {}
    }
}

/// A MAC address derived from an IPv4 address: `02:00:a:b:c:d`
/// (locally administered, unicast), so MAC-keyed NFs see one MAC per host.
pub fn mac_for_ip(ip: u32) -> [u8; 6] {
    let b = ip.to_be_bytes();
    [0x02, 0x00, b[0], b[1], b[2], b[3]]
}

/// Builder for one specific test packet.
///
/// ```
/// use nfc_net::craft::{PacketBuilder, tcp_flags};
/// let frame = PacketBuilder::tcp("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap(), 1234, 80)
///     .flags(tcp_flags::SYN)
///     .frame_len(64)
///     .build();
/// assert_eq!(frame.len(), 64);
/// ```
#[derive(Debug, Clone)]
pub struct PacketBuilder {
    spec: FrameSpec,
    payload: Vec<u8>,
    frame_len: usize,
}

impl PacketBuilder {
    fn new(src: Ipv4Addr, dst: Ipv4Addr, l4: L4) -> Self {
        let (s, d) = (u32::from(src), u32::from(dst));
        PacketBuilder {
            spec: FrameSpec {
                src_mac: mac_for_ip(s),
                dst_mac: mac_for_ip(d),
                vlan: None,
                src_ip: s,
                dst_ip: d,
                ttl: 64,
                ip_id: 0,
                frag_offset: 0,
                tos: 0,
                tcp_option_words: 0,
                l4,
            },
            payload: vec![],
            frame_len: 0,
        }
    }

    /// A TCP segment with the ACK flag set (change it with [`Self::flags`]).
    pub fn tcp(src: Ipv4Addr, dst: Ipv4Addr, sport: u16, dport: u16) -> Self {
        Self::new(
            src,
            dst,
            L4::Tcp {
                sport,
                dport,
                flags: tcp_flags::ACK,
                seq: 0,
                ack: 0,
            },
        )
    }

    /// A UDP datagram.
    pub fn udp(src: Ipv4Addr, dst: Ipv4Addr, sport: u16, dport: u16) -> Self {
        Self::new(src, dst, L4::Udp { sport, dport })
    }

    /// An ICMP echo request.
    pub fn icmp_echo(src: Ipv4Addr, dst: Ipv4Addr, id: u16, seq: u16) -> Self {
        Self::new(
            src,
            dst,
            L4::Icmp {
                ty: 8,
                code: 0,
                id,
                seq,
            },
        )
    }

    /// An IPv4 packet of another protocol, with no transport header.
    pub fn ip_raw(src: Ipv4Addr, dst: Ipv4Addr, proto: u8) -> Self {
        Self::new(src, dst, L4::Raw { proto })
    }

    /// TCP flags (ignored for other protocols).
    pub fn flags(mut self, flags: u8) -> Self {
        if let L4::Tcp { flags: f, .. } = &mut self.spec.l4 {
            *f = flags;
        }
        self
    }

    /// TCP sequence and acknowledgement numbers (ignored for other protocols).
    pub fn seq_ack(mut self, seq: u32, ack: u32) -> Self {
        if let L4::Tcp { seq: s, ack: a, .. } = &mut self.spec.l4 {
            *s = seq;
            *a = ack;
        }
        self
    }

    pub fn src_mac(mut self, mac: [u8; 6]) -> Self {
        self.spec.src_mac = mac;
        self
    }

    pub fn dst_mac(mut self, mac: [u8; 6]) -> Self {
        self.spec.dst_mac = mac;
        self
    }

    /// Insert an 802.1Q tag.
    pub fn vlan(mut self, vid: u16) -> Self {
        self.spec.vlan = Some(vid);
        self
    }

    pub fn ttl(mut self, ttl: u8) -> Self {
        self.spec.ttl = ttl;
        self
    }

    pub fn ip_id(mut self, id: u16) -> Self {
        self.spec.ip_id = id;
        self
    }

    /// Make this a non-first IPv4 fragment (offset in 8-byte units, > 0).
    pub fn fragment(mut self, offset_units: u16) -> Self {
        self.spec.frag_offset = offset_units;
        self
    }

    pub fn payload(mut self, payload: &[u8]) -> Self {
        self.payload = payload.to_vec();
        self
    }

    /// Pad the frame to at least this many bytes (without FCS).
    pub fn frame_len(mut self, len: usize) -> Self {
        self.frame_len = len;
        self
    }

    /// The frame layout this builder will write.
    pub fn spec(&self) -> &FrameSpec {
        &self.spec
    }

    pub fn build(&self) -> Vec<u8> {
        let mut out = Vec::new();
        write_frame(&mut out, &self.spec, &self.payload, self.frame_len);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> Ipv4Addr {
        s.parse().unwrap()
    }

    fn check_checksums(frame: &[u8], l3: usize) {
        assert_eq!(
            internet_checksum(&frame[l3..l3 + 20]),
            0,
            "IPv4 header checksum"
        );
        let ip_len = usize::from(u16::from_be_bytes([frame[l3 + 2], frame[l3 + 3]]));
        let l4 = &frame[l3 + 20..l3 + ip_len];
        let proto = frame[l3 + 9];
        if proto == 1 {
            assert_eq!(internet_checksum(l4), 0, "ICMP checksum");
        } else {
            let mut acc = sum16(&frame[l3 + 12..l3 + 20], 0) + u32::from(proto) + l4.len() as u32;
            acc = sum16(l4, acc);
            assert_eq!(fold(acc), 0, "L4 checksum for proto {proto}");
        }
    }

    #[test]
    fn crafted_frames_have_valid_checksums_and_lengths() {
        let cases = [
            (
                PacketBuilder::tcp(ip("10.1.2.3"), ip("192.168.0.9"), 40000, 443)
                    .frame_len(64)
                    .build(),
                14,
                64,
            ),
            (
                PacketBuilder::udp(ip("10.1.2.3"), ip("8.8.8.8"), 5353, 53)
                    .payload(b"hello")
                    .build(),
                14,
                47,
            ),
            (
                PacketBuilder::icmp_echo(ip("1.2.3.4"), ip("5.6.7.8"), 7, 1)
                    .frame_len(98)
                    .build(),
                14,
                98,
            ),
            (
                PacketBuilder::udp(ip("10.0.0.1"), ip("10.0.0.2"), 1, 2)
                    .vlan(42)
                    .frame_len(64)
                    .build(),
                18,
                64,
            ),
        ];
        for (frame, l3, len) in cases {
            assert_eq!(frame.len(), len);
            check_checksums(&frame, l3);
        }
    }

    #[test]
    fn known_ipv4_checksum() {
        // RFC 1071-style example header from Wikipedia's "IPv4 header checksum".
        let hdr = [
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8,
            0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
        ];
        assert_eq!(internet_checksum(&hdr), 0xb861);
    }

    #[test]
    fn tcp_layout_matches_nf_h() {
        let f = PacketBuilder::tcp(ip("10.0.0.1"), ip("10.0.0.2"), 0x1234, 0x0050)
            .flags(tcp_flags::SYN)
            .build();
        assert_eq!(f.len(), 54);
        assert_eq!(&f[12..14], &[0x08, 0x00]);
        assert_eq!(f[23], 6);
        assert_eq!(&f[26..30], &[10, 0, 0, 1]);
        assert_eq!(&f[34..36], &[0x12, 0x34]);
        assert_eq!(&f[36..38], &[0x00, 0x50]);
        assert_eq!(f[47], tcp_flags::SYN);
        assert_eq!(&f[6..12], &mac_for_ip(0x0a00_0001));
    }
    #[test]
    fn replies_mirror_the_request_with_valid_checksums() {
        let syn = PacketBuilder::tcp(ip("10.1.2.3"), ip("192.168.0.9"), 40000, 443)
            .flags(tcp_flags::SYN)
            .frame_len(64)
            .build();
        let r = reply_frame(&syn);
        let expect = PacketBuilder::tcp(ip("192.168.0.9"), ip("10.1.2.3"), 443, 40000)
            .flags(tcp_flags::SYN | tcp_flags::ACK)
            .src_mac(mac_for_ip(0xc0a8_0009))
            .dst_mac(mac_for_ip(0x0a01_0203))
            .frame_len(64)
            .build();
        assert_eq!(&r[0..6], &syn[6..12]);
        assert_eq!(&r[6..12], &syn[0..6]);
        assert_eq!(
            &r[12..],
            &expect[12..],
            "reply = the packet the remote host builds"
        );
        check_checksums(&r, 14);
        let udp = PacketBuilder::udp(ip("10.0.0.1"), ip("10.0.0.2"), 1, 2)
            .vlan(42)
            .payload(b"x")
            .build();
        let r = reply_frame(&udp);
        check_checksums(&r, 18);
        assert_eq!(&r[30..34], &[10, 0, 0, 2]);
        assert_eq!(&r[38..42], &[0, 2, 0, 1]);
        assert_eq!(reply_frame(&r), udp, "a reply's reply is the request");
        let ping = PacketBuilder::icmp_echo(ip("1.2.3.4"), ip("5.6.7.8"), 7, 1).build();
        let r = reply_frame(&ping);
        assert_eq!(r[34], 0, "echo reply");
        check_checksums(&r, 14);
        for len in 0..syn.len() {
            let _ = reply_frame(&syn[..len]);
        }
    }
}
