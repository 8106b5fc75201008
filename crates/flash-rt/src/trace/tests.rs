//! Tests of the trace generator: spec validation, determinism, and that the
//! generated traffic has the shape the spec asks for.

use super::*;
use nfc_core::chain::{SizeMix, TrafficSpec};

fn spec(f: impl FnOnce(&mut TrafficSpec)) -> TrafficSpec {
    let mut s = TrafficSpec {
        packets: 2000,
        flows: 100,
        ..TrafficSpec::default()
    };
    f(&mut s);
    s
}

fn check_invalid(s: TrafficSpec, field: &str, msg: &str) {
    match validate(&s) {
        Err(TraceError::Invalid { field: f, message }) => {
            assert_eq!(f, field);
            assert!(
                message.contains(msg),
                "message `{message}` does not contain `{msg}`"
            );
        }
        other => panic!("expected invalid `{field}`, got {other:?}"),
    }
}

#[test]
fn invalid_specs_name_the_field() {
    check_invalid(spec(|s| s.flows = 0), "flows", "at least 1");
    check_invalid(spec(|s| s.tcp = 0.5), "tcp", "sum to 1");
    check_invalid(spec(|s| s.udp = -0.1), "udp", "between 0 and 1");
    check_invalid(
        spec(|s| s.bidirectional = 1.5),
        "bidirectional",
        "between 0 and 1",
    );
    check_invalid(spec(|s| s.zipf = f64::NAN), "zipf", "finite");
    check_invalid(
        spec(|s| s.src_prefix = "10.0.0/8".into()),
        "src_prefix",
        "not an IPv4 prefix",
    );
    check_invalid(
        spec(|s| s.dst_prefix = "1.2.3.4/33".into()),
        "dst_prefix",
        "not an IPv4 prefix",
    );
    check_invalid(
        spec(|s| s.sizes = SizeMix::Fixed(50)),
        "sizes",
        "outside 54",
    );
    check_invalid(
        spec(|s| s.sizes = SizeMix::Weighted(vec![(64, 0)])),
        "sizes",
        "weight > 0",
    );
    check_invalid(
        spec(|s| {
            s.src_prefix = "10.0.0.0/30".into();
            s.src_hosts = 5
        }),
        "src_hosts",
        "do not fit",
    );
    // UDP-only traffic may use 42-byte frames.
    assert!(validate(&spec(|s| {
        s.tcp = 0.0;
        s.udp = 1.0;
        s.sizes = SizeMix::Fixed(42)
    }))
    .is_ok());
}

#[test]
fn same_seed_same_trace_other_seed_other_trace() {
    let a = generate_packets(&spec(|_| {})).unwrap();
    let b = generate_packets(&spec(|_| {})).unwrap();
    let c = generate_packets(&spec(|s| s.seed = 2)).unwrap();
    assert_eq!(a.0, b.0);
    assert_eq!(a.1, b.1);
    assert_ne!(a.1.digest, c.1.digest);
    assert_eq!(a.0.digest(), a.1.digest);
}

fn parse(frame: &[u8]) -> (u32, u32, u16, u16, u8) {
    let ip = &frame[14..34];
    assert_eq!(craft::internet_checksum(ip), 0, "bad IPv4 checksum");
    let l4 = &frame[34..];
    let proto = ip[9];
    let (sp, dp) = if proto == 1 {
        (0, 0)
    } else {
        (
            u16::from_be_bytes([l4[0], l4[1]]),
            u16::from_be_bytes([l4[2], l4[3]]),
        )
    };
    (
        u32::from_be_bytes([ip[12], ip[13], ip[14], ip[15]]),
        u32::from_be_bytes([ip[16], ip[17], ip[18], ip[19]]),
        sp,
        dp,
        proto,
    )
}

#[test]
fn shares_sizes_and_prefixes_are_respected() {
    let s = spec(|s| {
        s.packets = 20_000;
        s.flows = 500;
        s.tcp = 0.5;
        s.udp = 0.3;
        s.icmp = 0.2;
        s.sizes = SizeMix::Imix;
        s.src_prefix = "172.16.0.0/12".into();
        s.dst_prefix = "192.0.2.0/24".into();
    });
    let (pk, sum) = generate_packets(&s).unwrap();
    assert_eq!(pk.len(), 20_000);
    assert_eq!(sum.tcp_packets + sum.udp_packets + sum.icmp_packets, 20_000);
    let mut sizes = std::collections::BTreeMap::new();
    for p in pk.iter() {
        let (src, dst, _, _, proto) = parse(p.data);
        assert_eq!(src >> 20, 0xac1, "source outside 172.16.0.0/12");
        assert_eq!(dst >> 8, 0xc00002, "destination outside 192.0.2.0/24");
        assert!(matches!(proto, 1 | 6 | 17));
        *sizes.entry(p.data.len()).or_insert(0u64) += 1;
    }
    assert_eq!(
        sizes.keys().copied().collect::<Vec<_>>(),
        vec![64, 594, 1518]
    );
    let share = |n: u64| n as f64 / 20_000.0;
    assert!(
        (share(sizes[&64]) - 7.0 / 12.0).abs() < 0.03,
        "IMIX 64-byte share {}",
        share(sizes[&64])
    );
    assert_eq!(sum.dst_hosts, 256, "500 flows over a /24 use every address");
    // Protocol shares are drawn per flow; with 500 flows they are close to the spec.
    assert!(sum.tcp_packets > 0 && sum.udp_packets > 0 && sum.icmp_packets > 0);
}

#[test]
fn zipf_concentrates_traffic_and_zero_is_uniform() {
    let skewed = generate_packets(&spec(|s| {
        s.packets = 10_000;
        s.zipf = 1.2
    }))
    .unwrap()
    .1;
    let uniform = generate_packets(&spec(|s| {
        s.packets = 10_000;
        s.zipf = 0.0
    }))
    .unwrap()
    .1;
    assert!(
        skewed.top_flow_packets > 2_000,
        "zipf 1.2 top flow has {}",
        skewed.top_flow_packets
    );
    assert!(
        uniform.top_flow_packets < 200,
        "uniform top flow has {}",
        uniform.top_flow_packets
    );
    assert_eq!(uniform.active_flows, 100);
}

#[test]
fn one_source_many_ports_makes_a_port_scan() {
    let s = spec(|s| {
        s.flows = 300;
        s.packets = 3000;
        s.zipf = 0.0;
        s.tcp = 1.0;
        s.udp = 0.0;
        s.src_hosts = 1;
        s.dst_hosts = 1;
    });
    let (pk, sum) = generate_packets(&s).unwrap();
    assert_eq!((sum.src_hosts, sum.dst_hosts), (1, 1));
    let ports: std::collections::HashSet<u16> = pk.iter().map(|p| parse(p.data).3).collect();
    assert!(
        ports.len() >= 295,
        "only {} distinct destination ports",
        ports.len()
    );
}

#[test]
fn bidirectional_flows_send_reverse_packets_with_syn_ack() {
    let s = spec(|s| {
        s.flows = 1;
        s.packets = 6;
        s.tcp = 1.0;
        s.udp = 0.0;
        s.bidirectional = 1.0;
    });
    let (pk, sum) = generate_packets(&s).unwrap();
    assert_eq!(sum.reverse_packets, 3);
    let t: Vec<_> = pk.iter().map(|p| parse(p.data)).collect();
    assert_eq!(
        (t[1].0, t[1].1, t[1].2, t[1].3),
        (t[0].1, t[0].0, t[0].3, t[0].2)
    );
    let flags: Vec<u8> = pk.iter().map(|p| p.data[47]).collect();
    assert_eq!(flags[0], craft::tcp_flags::SYN);
    assert_eq!(flags[1], craft::tcp_flags::SYN | craft::tcp_flags::ACK);
    assert_eq!(flags[2] & craft::tcp_flags::SYN, 0);
}

#[test]
fn pcap_file_matches_memory_trace() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.pcap");
    let s = spec(|_| {});
    let sum = generate(&s, &path).unwrap();
    let back = pcap::read_pcap(&path).unwrap();
    assert_eq!(back.digest(), sum.digest);
    assert_eq!(
        back.get(1).unwrap().ts_ns - back.get(0).unwrap().ts_ns,
        1000
    );
    let bad = generate(&s, &dir.path().join("missing/dir/t.pcap")).unwrap_err();
    assert!(matches!(bad, TraceError::Io { .. }), "{bad}");
}
