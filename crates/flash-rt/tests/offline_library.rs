//! Behavioural tests of library NFs (`nfs/<name>/<name>.c`) run by the
//! offline executor over generated traces. Each expectation is computed by an
//! independent model of what the NF promises (its header comment), not by
//! running the NF.

mod offline_support;

use flash_rt::offline::{run_packets, ExecOptions, ExecRun};
use flash_rt::rss::FlowFields;
use flash_rt::trace::{generate_packets, Packets};
use nfc_core::chain::{SizeMix, TrafficSpec};
use nfc_core::facts::Field;
use nfc_core::plan::Sharing;
use offline_support::*;
use std::collections::{HashMap, HashSet};

fn lib(name: &str) -> Option<std::path::PathBuf> {
    Some(library_nf(name).unwrap_or_else(|| panic!("nfs/{name}/{name}.c is missing from the tree")))
}

fn exec(
    chain: &flash_rt::offline::ExecChain,
    trace: &Packets,
    workers: u32,
    rss: &[Field],
) -> ExecRun {
    let opts = ExecOptions {
        workers,
        rss_fields: rss.to_vec(),
        collect_output: true,
        ..ExecOptions::default()
    };
    run_packets(chain, trace, &opts).unwrap_or_else(|e| panic!("{e}"))
}

/// Interleave two traces packet by packet, re-timestamped 1 µs apart.
fn interleave(a: &Packets, b: &Packets) -> Packets {
    let mut out = Packets::new();
    let n = a.len().max(b.len());
    let mut t = 1_000_000_000u64;
    for i in 0..n {
        for p in [a.get(i), b.get(i)].into_iter().flatten() {
            out.push(t, p.data);
            t += 1000;
        }
    }
    out
}

fn tcp_only(f: impl FnOnce(&mut TrafficSpec)) -> TrafficSpec {
    let mut s = TrafficSpec {
        tcp: 1.0,
        udp: 0.0,
        icmp: 0.0,
        zipf: 0.0,
        ..TrafficSpec::default()
    };
    f(&mut s);
    s
}

#[test]
fn port_scan_detector_flags_a_source_after_threshold_ports() {
    let Some(so) = lib("port_scan_detector") else {
        return;
    };
    let scan = generate_packets(&tcp_only(|s| {
        s.flows = 40;
        s.packets = 400;
        s.src_hosts = 1;
        s.dst_hosts = 1;
        s.src_prefix = "203.0.113.7/32".into();
        s.seed = 11;
    }))
    .unwrap()
    .0;
    let benign = generate_packets(&tcp_only(|s| {
        s.flows = 300;
        s.packets = 400;
        s.seed = 12;
    }))
    .unwrap()
    .0;
    let trace = interleave(&scan, &benign);
    let chain = linear(vec![nf(
        "psd",
        &so,
        &[
            ("threshold", "8"),
            ("window_ms", "10000"),
            ("action", "mark"),
        ],
        &[],
        Sharing::Shared,
    )]);
    let run = exec(&chain, &trace, 1, &[]);
    // Model: a source is flagged from the packet that brings its distinct
    // destination ports to the threshold onwards.
    let mut ports: HashMap<[u8; 4], HashSet<[u8; 2]>> = HashMap::new();
    let mut expect_flagged = vec![];
    for (i, p) in trace.iter().enumerate() {
        let f = FlowFields::parse(p.data);
        let set = ports.entry(f.src_ip).or_default();
        set.insert(f.dst_port);
        if set.len() >= 8 {
            expect_flagged.push(i as u64);
        }
    }
    let flagged: Vec<u64> = run
        .output_tags
        .iter()
        .filter(|t| t.port == 1)
        .map(|t| t.input)
        .collect();
    assert!(!expect_flagged.is_empty());
    assert_eq!(flagged, expect_flagged);
    for &i in &flagged {
        assert_eq!(
            FlowFields::parse(trace.get(i as usize).unwrap().data).src_ip,
            [203, 0, 113, 7]
        );
    }
    assert_eq!(
        run.report.exits["psd.0"] + run.report.exits["psd.1"],
        trace.len() as u64
    );
    // With action=drop the flagged packets disappear instead.
    let drop_chain = linear(vec![nf(
        "psd",
        &so,
        &[("threshold", "8"), ("action", "drop")],
        &[],
        Sharing::Shared,
    )]);
    let r = exec(&drop_chain, &trace, 1, &[]).report;
    assert_eq!(r.nfs[0].drops, expect_flagged.len() as u64);
}

#[test]
fn policer_passes_burst_plus_rate() {
    let Some(so) = lib("policer") else { return };
    // Two destinations, 64-byte frames every 1 µs each: far above the rate.
    let spec = tcp_only(|s| {
        s.flows = 2;
        s.packets = 20_000;
        s.dst_hosts = 2;
        s.sizes = SizeMix::Fixed(64);
    });
    let trace = generate_packets(&spec).unwrap().0;
    let (rate, burst) = (1_000_000u64, 6_400u64);
    let chain = linear(vec![nf(
        "pol",
        &so,
        &[("rate", &rate.to_string()), ("burst", &burst.to_string())],
        &[],
        Sharing::Shared,
    )]);
    let run = exec(&chain, &trace, 1, &[]);
    let out = run.output.unwrap();
    let duration_ns = trace.get(trace.len() - 1).unwrap().ts_ns - trace.get(0).unwrap().ts_ns;
    let mut per_dst: HashMap<[u8; 4], u64> = HashMap::new();
    for p in out.iter() {
        *per_dst.entry(FlowFields::parse(p.data).dst_ip).or_default() += p.data.len() as u64;
    }
    assert_eq!(per_dst.len(), 2, "each destination has its own bucket");
    let allowance = burst + rate * duration_ns / 1_000_000_000;
    for (dst, bytes) in per_dst {
        assert!(
            bytes <= allowance,
            "{dst:?}: {bytes} bytes passed, allowance {allowance}"
        );
        assert!(
            bytes + 2 * 64 >= allowance,
            "{dst:?}: only {bytes} bytes passed, allowance {allowance}"
        );
    }
}

#[test]
fn flow_counter_enforces_its_per_flow_budget() {
    let Some(so) = lib("flow_counter") else {
        return;
    };
    let trace = generate_packets(&TrafficSpec {
        flows: 200,
        packets: 5000,
        zipf: 1.1,
        ..TrafficSpec::default()
    })
    .unwrap()
    .0;
    let chain = linear(vec![nf(
        "fc",
        &so,
        &[("max_packets", "10")],
        &[],
        Sharing::Shared,
    )]);
    let r = exec(&chain, &trace, 1, &[]).report;
    let mut per_flow: HashMap<FlowFields, u64> = HashMap::new();
    for p in trace.iter() {
        let mut f = FlowFields::parse(p.data);
        (f.src_mac, f.dst_mac) = ([0; 6], [0; 6]);
        *per_flow.entry(f).or_default() += 1;
    }
    let expect: u64 = per_flow.values().map(|&n| n.saturating_sub(10)).sum();
    assert!(expect > 0);
    assert_eq!(r.nfs[0].drops, expect);
}

#[test]
fn flowmage_chain_shared_nothing_on_src_ip_matches_single_worker() {
    let (Some(psd), Some(fc)) = (lib("port_scan_detector"), lib("flow_counter")) else {
        return;
    };
    // Both NFs' flow keys contain src_ip, so RSS on src_ip makes them safe
    // shared-nothing: the two-worker output must equal the one-worker output.
    let trace = generate_packets(&TrafficSpec {
        flows: 500,
        packets: 8000,
        src_hosts: 40,
        ..TrafficSpec::default()
    })
    .unwrap()
    .0;
    let chain = |sharing| {
        linear(vec![
            nf(
                "psd",
                &psd,
                &[("threshold", "6"), ("action", "drop")],
                &[],
                sharing,
            ),
            nf("fc", &fc, &[("max_packets", "12")], &[], sharing),
        ])
    };
    let one = exec(&chain(Sharing::Shared), &trace, 1, &[]).report;
    let sn = exec(&chain(Sharing::SharedNothing), &trace, 2, &[Field::SrcIp]).report;
    let sh = exec(&chain(Sharing::Shared), &trace, 2, &[Field::SrcIp]).report;
    assert!(one.dropped > 0 && one.exited > 0);
    assert_eq!(sn.output_digest, one.output_digest);
    assert_eq!(sh.output_digest, one.output_digest);
    assert_eq!(sn.nfs[0].drops, one.nfs[0].drops);
}
