//! Integration tests of the offline executor on small C test NFs
//! (`tests/data/nfs/`): determinism, DAG routing, per-instance globals,
//! shared vs shared-nothing layouts, timestamps and pcap I/O.

mod offline_support;

use flash_rt::offline::{run_packets, run_pcap, ExecChain, ExecOptions, ExecRun};
use flash_rt::trace::{pcap, Packets};
use nfc_core::facts::Field;
use nfc_core::plan::Sharing;
use offline_support::*;

fn run(chain: &ExecChain, packets: &Packets, workers: u32, rss: &[Field]) -> ExecRun {
    let opts = ExecOptions {
        workers,
        rss_fields: rss.to_vec(),
        collect_output: true,
        ..ExecOptions::default()
    };
    run_packets(chain, packets, &opts).unwrap_or_else(|e| panic!("run failed: {e}"))
}

fn flowlimit_chain(limit: &str, key: &str, sharing: Sharing) -> ExecChain {
    let so = test_nf("flowlimit");
    linear(vec![nf(
        "limit",
        &so,
        &[("limit", limit), ("key", key)],
        &[],
        sharing,
    )])
}

#[test]
fn same_input_same_digests() {
    let trace = mixed_trace(3000, 97);
    let chain = linear(vec![
        nf(
            "a",
            &test_nf("flowlimit"),
            &[("limit", "20")],
            &[],
            Sharing::Shared,
        ),
        nf(
            "b",
            &test_nf("marker"),
            &[("offset", "50"), ("value", "7")],
            &[],
            Sharing::Stateless,
        ),
    ]);
    let r1 = run(&chain, &trace, 1, &Field::FIVE_TUPLE).report;
    let r2 = run(&chain, &trace, 1, &Field::FIVE_TUPLE).report;
    assert_eq!(r1.state_digest, r2.state_digest);
    assert_eq!(r1.output_digest, r2.output_digest);
    assert_eq!(r1.nfs[0].instance_digests, r2.nfs[0].instance_digests);
    // 97 flows of ~31 packets, at most 20 pass each.
    assert_eq!(r1.nfs[0].rx, 3000);
    assert_eq!(r1.exited + r1.dropped, 3000);
    assert_eq!(r1.exits["b.0"], r1.exited);
    assert_eq!(r1.nfs[0].drops, 3000 - 97 * 20);
    // Different input gives a different state.
    let r3 = run(&chain, &mixed_trace(3000, 96), 1, &Field::FIVE_TUPLE).report;
    assert_ne!(r1.state_digest, r3.state_digest);
}

#[test]
fn timestamps_reach_nf_state() {
    let trace = mixed_trace(10, 3);
    let mut shifted = Packets::new();
    for p in trace.iter() {
        shifted.push(p.ts_ns + 5, p.data);
    }
    let chain = flowlimit_chain("1000", "5tuple", Sharing::Shared);
    let a = run(&chain, &trace, 1, &[]).report;
    let b = run(&chain, &shifted, 1, &[]).report;
    assert_eq!(
        a.output_digest, b.output_digest,
        "frames do not depend on time"
    );
    assert_ne!(
        a.state_digest, b.state_digest,
        "last_ns in the state follows now_ns"
    );
}

#[test]
fn dag_fan_out_and_fan_in() {
    // classify -> tcp: marker(60=1) -> join marker(61=9)
    //          -> udp: marker(60=2) -> join
    //          -> other: exit classify.2
    let cls = test_nf("classify");
    let mk = test_nf("marker");
    let chain = ExecChain {
        nfs: vec![
            nf("cls", &cls, &[], &[(0, 1), (1, 2)], Sharing::Stateless),
            nf(
                "tcp",
                &mk,
                &[("offset", "60"), ("value", "1")],
                &[(0, 3)],
                Sharing::Stateless,
            ),
            nf(
                "udp",
                &mk,
                &[("offset", "60"), ("value", "2")],
                &[(0, 3)],
                Sharing::Stateless,
            ),
            nf(
                "join",
                &mk,
                &[("offset", "61"), ("value", "9")],
                &[],
                Sharing::Stateless,
            ),
        ],
        entries: vec![0],
    };
    let mut trace = mixed_trace(10, 10); // 5 TCP, 5 UDP
    let icmp = flash_rt::trace::craft::PacketBuilder::icmp_echo(
        "10.0.0.1".parse().unwrap(),
        "10.0.0.2".parse().unwrap(),
        1,
        1,
    )
    .frame_len(64)
    .build();
    trace.push(99, &icmp);
    let run = run(&chain, &trace, 1, &[]);
    let r = &run.report;
    assert_eq!(r.nfs[0].out, vec![5, 5, 1]);
    assert_eq!(r.nfs[3].rx, 10);
    assert_eq!(r.exits.get("join.0"), Some(&10));
    assert_eq!(r.exits.get("cls.2"), Some(&1));
    assert_eq!(r.exits.len(), 2, "{:?}", r.exits);
    let out = run.output.unwrap();
    assert_eq!(out.len(), 11);
    for (i, p) in out.iter().enumerate() {
        let expect = match i {
            10 => (icmp[60], icmp[61]),
            i if i % 2 == 0 => (1, 9),
            _ => (2, 9),
        };
        assert_eq!((p.data[60], p.data[61]), expect, "packet {i}");
    }
}

#[test]
fn several_successors_on_one_port_each_get_a_copy() {
    let mk = test_nf("marker");
    let chain = ExecChain {
        nfs: vec![
            nf(
                "tap",
                &mk,
                &[("offset", "59"), ("value", "5")],
                &[(0, 1), (0, 2)],
                Sharing::Stateless,
            ),
            nf(
                "x",
                &mk,
                &[("offset", "60"), ("value", "1")],
                &[],
                Sharing::Stateless,
            ),
            nf(
                "y",
                &mk,
                &[("offset", "60"), ("value", "2")],
                &[],
                Sharing::Stateless,
            ),
        ],
        entries: vec![0],
    };
    let run = run(&chain, &mixed_trace(4, 4), 1, &[]);
    assert_eq!(run.report.exits["x.0"], 4);
    assert_eq!(run.report.exits["y.0"], 4);
    let out = run.output.unwrap();
    let marks: Vec<(u8, u8)> = out.iter().map(|p| (p.data[59], p.data[60])).collect();
    assert_eq!(marks, [(5, 1), (5, 2)].repeat(4));
    let inputs: Vec<u64> = run.output_tags.iter().map(|t| t.input).collect();
    assert_eq!(inputs, vec![0, 0, 1, 1, 2, 2, 3, 3]);
}

#[test]
fn two_instances_of_one_object_keep_their_own_globals() {
    let mk = test_nf("marker");
    let chain = linear(vec![
        nf(
            "first",
            &mk,
            &[("offset", "58"), ("value", "170")],
            &[],
            Sharing::Stateless,
        ),
        nf(
            "second",
            &mk,
            &[("offset", "59"), ("value", "187")],
            &[],
            Sharing::Stateless,
        ),
    ]);
    let run = run(&chain, &mixed_trace(3, 3), 1, &[]);
    for p in run.output.unwrap().iter() {
        assert_eq!((p.data[58], p.data[59]), (170, 187));
    }
}

#[test]
fn shared_and_shared_nothing_agree_when_rss_keeps_flows_together() {
    let trace = mixed_trace(4000, 211);
    let single = run(
        &flowlimit_chain("7", "5tuple", Sharing::Shared),
        &trace,
        1,
        &[],
    )
    .report;
    for rss in [
        &Field::FIVE_TUPLE[..],
        &[Field::SrcIp][..],
        &[Field::SrcIp, Field::DstIp][..],
    ] {
        let sn = run(
            &flowlimit_chain("7", "5tuple", Sharing::SharedNothing),
            &trace,
            2,
            rss,
        )
        .report;
        let sh = run(
            &flowlimit_chain("7", "5tuple", Sharing::Shared),
            &trace,
            2,
            rss,
        )
        .report;
        assert_eq!(
            sn.output_digest, single.output_digest,
            "shared-nothing, rss {rss:?}"
        );
        assert_eq!(
            sh.output_digest, single.output_digest,
            "shared, rss {rss:?}"
        );
        assert_eq!(sn.nfs[0].drops, single.nfs[0].drops);
        assert_eq!(sn.nfs[0].state_instances, 2);
        assert_eq!(sh.nfs[0].state_instances, 1);
        assert!(
            sn.worker_packets.iter().all(|&n| n > 0),
            "both workers get traffic: {:?}",
            sn.worker_packets
        );
    }
    // Shared-nothing over two workers is itself deterministic.
    let a = run(
        &flowlimit_chain("7", "5tuple", Sharing::SharedNothing),
        &trace,
        2,
        &Field::FIVE_TUPLE,
    )
    .report;
    let b = run(
        &flowlimit_chain("7", "5tuple", Sharing::SharedNothing),
        &trace,
        2,
        &Field::FIVE_TUPLE,
    )
    .report;
    assert_eq!(a.state_digest, b.state_digest);
}

#[test]
fn shared_nothing_is_wrong_when_rss_splits_the_flow_key() {
    // Keyed by source address, but RSS hashes the source port: one source's
    // packets spread over both workers, so per-worker state undercounts.
    let mut trace = Packets::new();
    for i in 0..400u16 {
        let b = flash_rt::trace::craft::PacketBuilder::udp(
            "10.0.0.1".parse().unwrap(),
            "10.0.0.2".parse().unwrap(),
            1000 + i,
            53,
        );
        trace.push(u64::from(i), &b.frame_len(64).build());
    }
    let shared = run(
        &flowlimit_chain("100", "src", Sharing::Shared),
        &trace,
        2,
        &[Field::SrcPort],
    )
    .report;
    let sn = run(
        &flowlimit_chain("100", "src", Sharing::SharedNothing),
        &trace,
        2,
        &[Field::SrcPort],
    )
    .report;
    assert_eq!(shared.nfs[0].drops, 300);
    assert!(
        sn.nfs[0].drops < 300,
        "split flow state lets more through: {}",
        sn.nfs[0].drops
    );
    assert_ne!(shared.output_digest, sn.output_digest);
}

#[test]
fn pcap_in_pcap_out() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.pcap");
    let output = dir.path().join("out.pcap");
    let trace = mixed_trace(500, 50);
    pcap::write_pcap(&input, &trace).unwrap();
    let chain = flowlimit_chain("5", "5tuple", Sharing::Shared);
    let report = run_pcap(&chain, &input, Some(&output), &ExecOptions::default()).unwrap();
    let out = pcap::read_pcap(&output).unwrap();
    assert_eq!(out.len() as u64, report.exited);
    assert_eq!(report.exited, 250);
    assert_eq!(Some(out.digest()), report.output_digest);
    // Exit packets keep their input timestamps and order.
    let ts: Vec<u64> = out.iter().map(|p| p.ts_ns).collect();
    assert!(ts.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(ts[0], trace.get(0).unwrap().ts_ns);
    // Without an output path nothing is collected.
    let r = run_pcap(&chain, &input, None, &ExecOptions::default()).unwrap();
    assert_eq!(r.output_digest, None);
    assert_eq!(r.state_digest, report.state_digest);
}

#[test]
fn verdicts_outside_the_declared_ports_count_as_invalid_drops() {
    // marker declares one port; port=5 is outside it.
    let chain = linear(vec![nf(
        "m",
        &test_nf("marker"),
        &[("value", "1"), ("port", "5")],
        &[],
        Sharing::Stateless,
    )]);
    let r = run(&chain, &mixed_trace(6, 2), 1, &[]).report;
    assert_eq!(r.nfs[0].invalid_verdicts, 6);
    assert_eq!(r.nfs[0].drops, 0);
    assert_eq!((r.dropped, r.exited), (6, 0));
}

/// The serial schedule computes what the parallel workers compute when each
/// flow stays on one worker: same exit packets, same per-instance state.
#[test]
fn serial_schedule_matches_the_parallel_workers() {
    let chain = flowlimit_chain("30", "src", Sharing::SharedNothing);
    let trace = mixed_trace(3000, 97);
    let par = run(&chain, &trace, 2, &[Field::SrcIp]);
    let opts = ExecOptions {
        workers: 2,
        rss_fields: vec![Field::SrcIp],
        collect_output: true,
        serial: true,
        ..ExecOptions::default()
    };
    let ser = run_packets(&chain, &trace, &opts).unwrap();
    assert!(par.report.nfs[0].drops > 0, "the limit must bite");
    assert_eq!(ser.report.output_digest, par.report.output_digest);
    assert_eq!(ser.report.state_digest, par.report.state_digest);
    assert_eq!(ser.report.worker_packets, par.report.worker_packets);
    assert_eq!(ser.output_tags, par.output_tags);
}

/// Closed loop through the NAT: each translated packet's reply enters the
/// NAT's outside port and is translated back to the inside host.
#[test]
fn reflected_replies_travel_the_nat_return_path() {
    let Some(so) = library_nf("nat") else {
        return;
    };
    let chain = linear(vec![nf(
        "nat",
        &so,
        &[("external_ip", "198.51.100.1")],
        &[],
        Sharing::Shared,
    )]);
    let trace = mixed_trace(200, 10);
    let opts = ExecOptions {
        reflect: true,
        ..ExecOptions::default()
    };
    let run = run_packets(&chain, &trace, &opts).unwrap();
    let out = run.output.as_ref().unwrap();
    assert_eq!(out.len(), 400, "every packet and every reply leaves");
    for (k, tag) in run.output_tags.iter().enumerate() {
        let f = flash_rt::rss::FlowFields::parse(out.get(k).unwrap().data);
        let input = flash_rt::rss::FlowFields::parse(trace.get(tag.input as usize).unwrap().data);
        if tag.reply {
            // Back inside: addressed to the original sender and port.
            assert_eq!((tag.nf, tag.port), (0, 1));
            assert_eq!((f.dst_ip, f.dst_port), (input.src_ip, input.src_port));
            assert_eq!((f.src_ip, f.src_port), (input.dst_ip, input.dst_port));
        } else {
            assert_eq!((tag.nf, tag.port), (0, 0));
            assert_eq!(f.src_ip, [198, 51, 100, 1]);
        }
    }
    assert_eq!(run.report.nfs[0].drops, 0);
}
