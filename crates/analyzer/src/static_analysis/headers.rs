//! Knowledge of packet header layouts across frameworks: which struct types
//! are Ethernet / IPv4 / IPv6 / L4 headers (nf.h, Linux, BSD, DPDK, VPP,
//! Click), which member names hold which [`Field`], byte offsets within a
//! frame, and framework accessors that return header pointers.

use nfc_core::facts::Field;

/// What a pointer points at inside the packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Hdr {
    /// The start of the Ethernet frame (raw bytes).
    Frame,
    Eth,
    Ip4,
    Ip6,
    L4,
}

/// Classify a (normalised) type name as a header type.
pub fn hdr_of_type(ty: &str) -> Option<Hdr> {
    let t = ty.to_ascii_lowercase();
    let t = t.trim();
    // Structs that merely mention a protocol (a TCP reassembly table, a
    // connection, per-flow state, statistics) are not header layouts.
    const NOT_HEADERS: &[&str] = &[
        "addr", "flowid", "headers", "key", "tuple", "tbl", "table", "conn", "state", "item",
        "ctx", "entry", "info", "stats", "param", "conf",
    ];
    if NOT_HEADERS.iter().any(|w| t.contains(w)) {
        return None;
    }
    if t.contains("ether")
        || t.contains("ethhdr")
        || t == "nf_eth"
        || t.ends_with("_eth")
        || t.contains("eth_hdr")
        || t.contains("mac_header")
    {
        return Some(Hdr::Eth);
    }
    if t.contains("ip6") || t.contains("ipv6") {
        return Some(Hdr::Ip6);
    }
    if t.contains("tcp")
        || t.contains("udp")
        || t.contains("sctp")
        || t.contains("l4_")
        || t.contains("transport")
    {
        return Some(Hdr::L4);
    }
    if t.contains("iphdr")
        || t.contains("ipv4")
        || t.contains("ip4_header")
        || t == "ip"
        || t.ends_with("_ip")
        || t.contains("ip_hdr")
        || t.contains("ip_header")
        || t == "ip4_h"
    {
        return Some(Hdr::Ip4);
    }
    None
}

/// Integer types that make a cast a raw read of packet bytes. POSIX's
/// socket integers (`in_port_t`, `in_addr_t`, `sa_family_t`) are listed
/// because the system header declaring them is not read: a pointer to one
/// is an out-parameter for a value, not storage the caller keeps.
pub fn scalar_width(ty: &str) -> Option<i64> {
    match ty {
        "uint8_t" | "u8" | "char" | "unsigned char" | "__u8" | "u_char" | "int8_t" => Some(1),
        "uint16_t" | "u16" | "__be16" | "__u16" | "rte_be16_t" | "unsigned short" | "short"
        | "u_short" | "in_port_t" | "sa_family_t" => Some(2),
        "uint32_t" | "u32" | "__be32" | "__u32" | "rte_be32_t" | "unsigned" | "unsigned int"
        | "int" | "u_int" | "in_addr_t" => Some(4),
        "uint64_t" | "u64" | "__be64" | "__u64" => Some(8),
        _ => None,
    }
}

/// The field behind a member of a header of kind `hdr`.
pub fn member_field(hdr: Hdr, name: &str) -> Option<Field> {
    let n = name.to_ascii_lowercase();
    let n = n.trim_start_matches('_');
    match hdr {
        Hdr::Eth => match n {
            "dst" | "h_dest" | "ether_dhost" | "dst_addr" | "d_addr" | "dst_address" | "dmac"
            | "dst_mac" | "dhost" => Some(Field::DstMac),
            "src" | "h_source" | "ether_shost" | "src_addr" | "s_addr" | "src_address" | "smac"
            | "src_mac" | "shost" => Some(Field::SrcMac),
            _ => None,
        },
        Hdr::Ip4 | Hdr::Ip6 => match n {
            "saddr" | "src_addr" | "ip_src" | "src_address" | "src" | "sip" | "src_ip"
            | "ip6_src" | "source_address" | "srcaddr" => Some(Field::SrcIp),
            "daddr"
            | "dst_addr"
            | "ip_dst"
            | "dst_address"
            | "dst"
            | "dip"
            | "dst_ip"
            | "ip6_dst"
            | "destination_address"
            | "dstaddr" => Some(Field::DstIp),
            "protocol" | "proto" | "ip_p" | "next_proto_id" | "next_hdr" | "nexthdr"
            | "ip6_nxt" | "next_header" | "proto_id" => Some(Field::Proto),
            _ => None,
        },
        Hdr::L4 => match n {
            "source" | "sport" | "src_port" | "th_sport" | "uh_sport" | "src" | "srcport" => {
                Some(Field::SrcPort)
            }
            "dest" | "dport" | "dst_port" | "th_dport" | "uh_dport" | "dst" | "dstport" => {
                Some(Field::DstPort)
            }
            _ => None,
        },
        Hdr::Frame => generic_member_field(n),
    }
}

/// Member names that identify a field whatever the header type.
pub fn generic_member_field(n: &str) -> Option<Field> {
    match n {
        "saddr" | "ip_src" | "src_ip" | "ip6_src" => Some(Field::SrcIp),
        "daddr" | "ip_dst" | "dst_ip" | "ip6_dst" => Some(Field::DstIp),
        "th_sport" | "uh_sport" | "sport" | "src_port" => Some(Field::SrcPort),
        "th_dport" | "uh_dport" | "dport" | "dst_port" => Some(Field::DstPort),
        "ip_p" | "next_proto_id" | "protocol" => Some(Field::Proto),
        "h_source" | "ether_shost" | "src_mac" => Some(Field::SrcMac),
        "h_dest" | "ether_dhost" | "dst_mac" => Some(Field::DstMac),
        _ => None,
    }
}

/// A header or descriptor member that holds a length (`tot_len`,
/// `ip6_plen`, `uh_ulen`, `pkt_len`, `caplen`, `data_len`, `len`): a
/// magnitude, never an identifier of a flow.
pub fn is_length_member(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    let n = n.trim_start_matches('_');
    n == "len"
        || n == "length"
        || n.ends_with("_len")
        || n.ends_with("_length")
        || n.ends_with("caplen")
        || n.ends_with("totlen")
        || n.ends_with("plen")
        || n.ends_with("ulen")
}

/// The field read at byte `off` of a header of kind `hdr` (`off` relative to
/// the header start; for `Frame`, relative to the Ethernet header).
pub fn field_at(hdr: Hdr, off: i64) -> Option<Field> {
    match hdr {
        Hdr::Frame => match off {
            0..=5 => Some(Field::DstMac),
            6..=11 => Some(Field::SrcMac),
            12..=13 => None,
            x if (14..34).contains(&x) => field_at(Hdr::Ip4, x - 14),
            x if (34..38).contains(&x) => field_at(Hdr::L4, x - 34),
            _ => None,
        },
        Hdr::Eth => field_at(Hdr::Frame, off),
        Hdr::Ip4 => match off {
            9 => Some(Field::Proto),
            12..=15 => Some(Field::SrcIp),
            16..=19 => Some(Field::DstIp),
            _ => None,
        },
        Hdr::Ip6 => match off {
            6 => Some(Field::Proto),
            8..=23 => Some(Field::SrcIp),
            24..=39 => Some(Field::DstIp),
            _ => None,
        },
        Hdr::L4 => match off {
            0..=1 => Some(Field::SrcPort),
            2..=3 => Some(Field::DstPort),
            _ => None,
        },
    }
}

/// The fields a read of `width` bytes at `off` covers (a 64-bit load of
/// the IPv4 source address also reads the destination).
pub fn fields_in(hdr: Hdr, off: i64, width: i64) -> Vec<Field> {
    let mut out: Vec<Field> = vec![];
    for o in off..off + width.clamp(1, 64) {
        if let Some(f) = field_at(hdr, o) {
            if !out.contains(&f) {
                out.push(f);
            }
        }
    }
    out
}

/// Framework accessors (functions or methods) that return a header pointer.
pub fn accessor_hdr(name: &str) -> Option<Hdr> {
    match name {
        "ip_header" | "network_header" | "ip4_header" | "ipv4_header" | "rte_ipv4_hdr"
        | "ip_hdr" => Some(Hdr::Ip4),
        "ip6_header" | "ipv6_header" => Some(Hdr::Ip6),
        "tcp_header" | "udp_header" | "transport_header" | "icmp_header" | "ip4_next_header"
        | "tcp_hdr" | "udp_hdr" => Some(Hdr::L4),
        "ether_header" | "mac_header" | "eth_hdr" | "ethernet_header" => Some(Hdr::Eth),
        "vlib_buffer_get_current"
        | "rte_pktmbuf_mtod"
        | "rte_pktmbuf_mtod_offset"
        | "data"
        | "buffer"
        | "packet_data" => Some(Hdr::Frame),
        _ => None,
    }
}

/// Accessors that return one field directly (Click annotations, IPFlowID getters).
pub fn accessor_field(name: &str) -> Option<Field> {
    match name {
        "dst_ip_anno" => Some(Field::DstIp),
        "saddr" | "src_ip" => Some(Field::SrcIp),
        "daddr" | "dst_ip" => Some(Field::DstIp),
        "sport" | "src_port" => Some(Field::SrcPort),
        "dport" | "dst_port" => Some(Field::DstPort),
        "proto" | "protocol" => Some(Field::Proto),
        _ => None,
    }
}

/// Types that stand for a whole flow identifier (Click IPFlowID and friends)
/// and the fields they carry when built from a packet.
pub fn flow_id_type(ty: &str) -> Option<&'static [Field]> {
    match super::program::bare(ty) {
        // Click's IPFlowID holds addresses and ports but no protocol.
        "IPFlowID" => Some(&[Field::SrcIp, Field::DstIp, Field::SrcPort, Field::DstPort]),
        "IPFlow5ID" => Some(&Field::FIVE_TUPLE),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(ty: &str, member: &str, expect: Option<Field>) {
        let h = hdr_of_type(ty).unwrap_or(Hdr::Frame);
        assert_eq!(member_field(h, member), expect, "{ty}.{member}");
    }

    #[test]
    fn members_map_by_header_kind() {
        check("rte_ipv4_hdr", "src_addr", Some(Field::SrcIp));
        check("rte_ether_hdr", "src_addr", Some(Field::SrcMac));
        check("rte_tcp_hdr", "dst_port", Some(Field::DstPort));
        check("ip4_header_t", "protocol", Some(Field::Proto));
        check("click_ip", "ip_dst", Some(Field::DstIp));
        check("iphdr", "saddr", Some(Field::SrcIp));
        check("tcphdr", "source", Some(Field::SrcPort));
        check("nf_eth", "src", Some(Field::SrcMac));
        check("ip4_address_t", "as_u32", None);
    }

    #[test]
    fn frame_offsets() {
        assert_eq!(field_at(Hdr::Frame, 26), Some(Field::SrcIp));
        assert_eq!(field_at(Hdr::Frame, 30), Some(Field::DstIp));
        assert_eq!(field_at(Hdr::Frame, 23), Some(Field::Proto));
        assert_eq!(field_at(Hdr::Frame, 36), Some(Field::DstPort));
        assert_eq!(field_at(Hdr::Frame, 6), Some(Field::SrcMac));
    }
}
