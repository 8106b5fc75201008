//! Acceptance tests of the placer through its public API: the FlowMage
//! chains (port-scan detector + policer + flow counter), tie-breaking by
//! complexity (CCE), load imbalance from the traffic, symmetric NFs, input
//! errors, and the ILP against the brute-force oracle on random chains.

use nfc_core::chain::{Nic, Resources};
use nfc_core::facts::{Facts, Field, Intensity};
use nfc_core::plan::{Plan, Sharing};
use nfc_placer::solve::{solve_brute_force, solve_ilp};
use nfc_placer::{
    build_problem, explain, place, PacketHeader, PlaceError, PlaceOptions, RssInputMode,
    SymmetryPolicy, TrafficProfile,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::cmp::Ordering;
use std::sync::Arc;

mod support;
use support::{diverse_traffic, random_chain};

use Field::*;

fn stateful(id: &str, key: &[Field], intensity: Intensity, cost: u64) -> (String, Facts) {
    (
        id.to_string(),
        Facts {
            stateful: true,
            flow_key: key.to_vec(),
            intensity,
            per_packet_cost: Some(cost),
            state_entry_bytes: Some(64),
            ..Facts::stateless(id)
        },
    )
}

/// port_scan_detector (src_ip), policer (dst_ip), flow_counter (5-tuple), all
/// writing per packet (FlowMage §4).
fn flowmage_chain(psd_cost: u64, policer_cost: u64) -> Vec<(String, Facts)> {
    vec![
        stateful(
            "port_scan_detector",
            &[SrcIp],
            Intensity::PerPacket,
            psd_cost,
        ),
        stateful("policer", &[DstIp], Intensity::PerPacket, policer_cost),
        stateful(
            "flow_counter",
            &Field::FIVE_TUPLE,
            Intensity::PerPacket,
            100,
        ),
    ]
}

fn resources(cores: u32) -> Resources {
    Resources {
        cores,
        ..Resources::default()
    }
}

fn sharing(plan: &Plan, nf: &str) -> Sharing {
    plan.nfs.iter().find(|p| p.nf == nf).unwrap().sharing
}

/// What a test expects of a plan.
struct Expect<'a> {
    fields: &'a [Field],
    symmetric: bool,
    shared_nothing: &'a [&'a str],
    shared: &'a [&'a str],
    rationale_mentions: &'a [&'a str],
}

fn check(
    chain: &[(String, Facts)],
    res: &Resources,
    traffic: &TrafficProfile,
    opts: &PlaceOptions,
    e: Expect,
) -> Plan {
    let (plan, _diags) = place(chain, res, traffic, opts).unwrap_or_else(|err| panic!("{err}"));
    let text = explain(&plan);
    assert_eq!(plan.rss.fields, e.fields, "{text}");
    assert_eq!(plan.rss.symmetric, e.symmetric, "{text}");
    for nf in e.shared_nothing {
        assert_eq!(sharing(&plan, nf), Sharing::SharedNothing, "{nf}\n{text}");
    }
    for nf in e.shared {
        assert_eq!(sharing(&plan, nf), Sharing::Shared, "{nf}\n{text}");
    }
    let rationale = plan.rationale.join("\n");
    for needle in e.rationale_mentions {
        assert!(
            rationale.contains(needle),
            "rationale lacks `{needle}`:\n{rationale}"
        );
    }
    // The ILP's choice is optimal: brute force agrees.
    let model = build_problem(chain, res, traffic, opts).unwrap();
    let brute = solve_brute_force(&model.problem).unwrap();
    assert!(
        (brute.cost - plan.total_cost).abs() <= 1e-6 * brute.cost,
        "{brute:?} vs {}",
        plan.total_cost
    );
    plan
}

#[test]
fn flowmage_chain_hashes_on_src_ip() {
    let plan = check(
        &flowmage_chain(400, 150),
        &resources(16),
        &diverse_traffic(20000, 1),
        &PlaceOptions::default(),
        Expect {
            fields: &[SrcIp],
            symmetric: false,
            shared_nothing: &["port_scan_detector", "flow_counter"],
            shared: &["policer"],
            rationale_mentions: &["hash on {src_ip}", "runner-up {dst_ip}"],
        },
    );
    assert_eq!(plan.cores, 16);
    assert_eq!(plan.rss.key40.len(), 40);
    assert_eq!(plan.rss.key52.len(), 52);
    assert!(plan
        .nfs
        .iter()
        .find(|p| p.nf == "policer")
        .unwrap()
        .reason
        .contains("{src_ip} are not in its flow key {dst_ip}"));
    // The 5-tuple hash of default FastClick is a worse, but usable, candidate.
    let five = plan
        .candidates
        .iter()
        .find(|c| c.fields == Field::FIVE_TUPLE[..4] && !c.symmetric)
        .unwrap();
    assert!(five.rejected.is_none() && five.cost > plan.total_cost);
    assert_eq!(five.shared_nothing, vec!["flow_counter".to_string()]);
}

#[test]
fn the_dst_ip_mirror_wins_when_the_policer_is_the_expensive_one() {
    check(
        &flowmage_chain(150, 400),
        &resources(16),
        &diverse_traffic(20000, 2),
        &PlaceOptions::default(),
        Expect {
            fields: &[DstIp],
            symmetric: false,
            shared_nothing: &["policer", "flow_counter"],
            shared: &["port_scan_detector"],
            rationale_mentions: &["hash on {dst_ip}"],
        },
    );
}

#[test]
fn equal_costs_are_broken_by_the_complexity_comparator() {
    // Without traffic both single-IP hashes balance perfectly: an exact tie.
    let chain = flowmage_chain(200, 200);
    let prefer = |winner: &'static str| -> PlaceOptions {
        PlaceOptions {
            comparator: Some(Arc::new(move |a: &Facts, b: &Facts| {
                if a.nf == b.nf {
                    Ordering::Equal
                } else if a.nf == winner {
                    Ordering::Greater
                } else if b.nf == winner {
                    Ordering::Less
                } else {
                    Ordering::Equal
                }
            })),
            ..PlaceOptions::default()
        }
    };
    let empty = TrafficProfile::new();
    check(
        &chain,
        &resources(8),
        &empty,
        &prefer("port_scan_detector"),
        Expect {
            fields: &[SrcIp],
            symmetric: false,
            shared_nothing: &["port_scan_detector"],
            shared: &["policer"],
            rationale_mentions: &["tie at cost", "port_scan_detector > policer"],
        },
    );
    let (plan, diags) = place(&chain, &resources(8), &empty, &prefer("policer")).unwrap();
    assert_eq!(plan.rss.fields, vec![DstIp]);
    assert!(
        diags
            .iter()
            .any(|d| d.code == "P105" && d.message.contains("comparator")),
        "{diags:?}"
    );
    // Without a comparator the facts' per-packet cost decides.
    let mut chain = chain;
    chain[1].1.per_packet_cost = Some(201);
    chain[0].1.state_entry_bytes = Some(1); // keeps the penalties comparable but not the cost ranking
    let plan = check(
        &chain,
        &resources(1),
        &empty,
        &PlaceOptions::default(),
        Expect {
            fields: &[DstIp],
            symmetric: false,
            shared_nothing: &["policer"],
            shared: &[],
            rationale_mentions: &["tie at cost"],
        },
    );
    // On one core sharing is free, so everything ties.
    assert!(plan
        .candidates
        .iter()
        .filter(|c| c.rejected.is_none())
        .all(|c| (c.cost - plan.total_cost).abs() < 1e-9));
}

#[test]
fn a_scanner_heavy_trace_unbalances_src_ip_and_the_cost_says_dst_ip() {
    // Two scanning sources send most packets: hashing on src_ip piles them on
    // at most two cores.
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut traffic = TrafficProfile::new();
    for i in 0..4000u32 {
        let src = if i % 2 == 0 { 0x0a00_0001 } else { 0xc0a8_0101 };
        traffic.push(
            PacketHeader {
                src_ip: src,
                dst_ip: rng.gen(),
                src_port: rng.gen(),
                dst_port: 80,
                proto: 6,
            },
            10,
        );
    }
    let plan = check(
        &flowmage_chain(400, 150),
        &resources(8),
        &traffic,
        &PlaceOptions::default(),
        Expect {
            fields: &[DstIp],
            symmetric: false,
            shared_nothing: &["policer", "flow_counter"],
            shared: &["port_scan_detector"],
            rationale_mentions: &["busiest-core share"],
        },
    );
    let src = plan
        .candidates
        .iter()
        .find(|c| c.fields == [SrcIp])
        .unwrap();
    assert!(src.cost > 2.0 * plan.total_cost, "{}", explain(&plan));
}

#[test]
fn a_symmetric_firewall_gets_a_symmetric_hash() {
    let mut fw = stateful(
        "firewall",
        &[SrcIp, DstIp, SrcPort, DstPort, Proto],
        Intensity::PerFlow,
        300,
    );
    fw.1.symmetric = true;
    let chain = vec![fw, ("acl".to_string(), Facts::stateless("acl"))];
    let nic = Nic {
        hash_fields: vec![
            vec![SrcIp],
            vec![DstIp],
            vec![SrcIp, DstIp, SrcPort, DstPort],
        ],
        ..Nic::default()
    };
    let plan = check(
        &chain,
        &Resources {
            nic,
            ..resources(4)
        },
        &diverse_traffic(3000, 4),
        &PlaceOptions::default(),
        Expect {
            fields: &[SrcIp, DstIp, SrcPort, DstPort],
            symmetric: true,
            shared_nothing: &["firewall"],
            shared: &[],
            rationale_mentions: &["symmetric"],
        },
    );
    assert_eq!(sharing(&plan, "acl"), Sharing::Stateless);
    assert!(plan.nfs[0].reason.contains("symmetric"));
}

#[test]
fn field_select_nics_hash_the_whole_address() {
    let opts = PlaceOptions {
        rss_input: RssInputMode::FieldSelect,
        ..PlaceOptions::default()
    };
    // Sources from one /8: the tuple-mode key sees only the top 7 bits of
    // src_ip and piles them onto one core; a field-select NIC spreads them.
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut traffic = TrafficProfile::new();
    for _ in 0..4000 {
        let h = PacketHeader {
            src_ip: 0x0a00_0000 | (rng.gen::<u32>() & 0xff_ffff),
            dst_ip: 0xc0a8_0001,
            src_port: rng.gen(),
            dst_port: 53,
            proto: 17,
        };
        traffic.push(h, 1);
    }
    let chain = vec![stateful("psd", &[SrcIp], Intensity::PerPacket, 300)];
    let tuple = place(&chain, &resources(4), &traffic, &PlaceOptions::default())
        .unwrap()
        .0;
    let select = place(&chain, &resources(4), &traffic, &opts).unwrap().0;
    let src_cost = |p: &Plan| {
        p.candidates
            .iter()
            .find(|c| c.fields == [SrcIp])
            .unwrap()
            .cost
    };
    assert!(
        src_cost(&select) < src_cost(&tuple),
        "{}\n{}",
        explain(&select),
        explain(&tuple)
    );
    assert_eq!(select.rss.fields, vec![SrcIp]);
}

#[test]
fn bad_input_gives_clear_errors() {
    let chain = flowmage_chain(300, 150);
    let t = TrafficProfile::new();
    let no_sets = Resources {
        nic: Nic {
            hash_fields: vec![],
            ..Nic::default()
        },
        ..resources(4)
    };
    assert!(matches!(
        place(&chain, &no_sets, &t, &PlaceOptions::default()),
        Err(PlaceError::NoUsableFieldSet { .. })
    ));
    let only_proto = Resources {
        nic: Nic {
            hash_fields: vec![vec![Proto], vec![SrcMac]],
            ..Nic::default()
        },
        ..resources(4)
    };
    let err = place(&chain, &only_proto, &t, &PlaceOptions::default()).unwrap_err();
    assert!(
        err.to_string().contains("no usable RSS field set") && err.to_string().contains("{proto}"),
        "{err}"
    );
    let single = Resources {
        nic: Nic {
            hash_fields: vec![vec![SrcIp], vec![DstIp]],
            ..Nic::default()
        },
        ..resources(4)
    };
    let require = PlaceOptions {
        symmetry: SymmetryPolicy::Require,
        ..PlaceOptions::default()
    };
    assert!(matches!(
        place(&chain, &single, &t, &require),
        Err(PlaceError::ConflictingSymmetry(_))
    ));
    let pins = PlaceOptions {
        pins: vec![
            ("port_scan_detector".into(), Sharing::SharedNothing),
            ("policer".into(), Sharing::SharedNothing),
        ],
        ..PlaceOptions::default()
    };
    match place(&chain, &resources(4), &t, &pins) {
        Err(PlaceError::Infeasible { pinned, detail }) => {
            assert_eq!(pinned, vec!["port_scan_detector", "policer"]);
            assert!(
                detail
                    .iter()
                    .any(|d| d.contains("pinned `policer` would share")),
                "{detail:?}"
            );
        }
        other => panic!("{other:?}"),
    }
    let mut sym_fw = stateful("fw", &[SrcIp, DstIp], Intensity::PerFlow, 10);
    sym_fw.1.symmetric = true;
    let forbid = PlaceOptions {
        symmetry: SymmetryPolicy::Forbid,
        pins: vec![("fw".into(), Sharing::SharedNothing)],
        ..PlaceOptions::default()
    };
    assert!(matches!(
        place(&[sym_fw], &resources(4), &t, &forbid),
        Err(PlaceError::ConflictingSymmetry(_))
    ));
    assert!(matches!(
        place(&chain, &resources(0), &t, &PlaceOptions::default()),
        Err(PlaceError::NoCores { .. })
    ));
    assert!(matches!(
        place(&[], &resources(2), &t, &PlaceOptions::default()),
        Err(PlaceError::EmptyChain)
    ));
    let dup = vec![chain[0].clone(), chain[0].clone()];
    assert!(matches!(
        place(&dup, &resources(2), &t, &PlaceOptions::default()),
        Err(PlaceError::DuplicateNf(_))
    ));
    let unknown = PlaceOptions {
        pins: vec![("nat".into(), Sharing::Shared)],
        ..PlaceOptions::default()
    };
    assert!(matches!(
        place(&chain, &resources(2), &t, &unknown),
        Err(PlaceError::UnknownPin(_))
    ));
}

#[test]
fn pins_are_honoured() {
    let pins = PlaceOptions {
        pins: vec![("flow_counter".into(), Sharing::Shared)],
        ..PlaceOptions::default()
    };
    let plan = check(
        &flowmage_chain(400, 150),
        &resources(4),
        &diverse_traffic(2000, 6),
        &pins,
        Expect {
            fields: &[SrcIp],
            symmetric: false,
            shared_nothing: &["port_scan_detector"],
            shared: &["policer", "flow_counter"],
            rationale_mentions: &[],
        },
    );
    assert!(plan
        .nfs
        .iter()
        .any(|p| p.reason == "pinned shared by the operator"));
}

#[test]
fn ilp_equals_brute_force_on_random_chains() {
    let mut rng = ChaCha8Rng::seed_from_u64(2024);
    for round in 0..220 {
        let n = rng.gen_range(1..=8);
        let chain = random_chain(&mut rng, n);
        let cores = [1, 2, 4, 8, 16][rng.gen_range(0..5)];
        let traffic = if rng.gen_bool(0.5) {
            TrafficProfile::new()
        } else {
            diverse_traffic(rng.gen_range(1..200), round)
        };
        let opts = PlaceOptions {
            rss_input: if rng.gen_bool(0.5) {
                RssInputMode::Tuple
            } else {
                RssInputMode::FieldSelect
            },
            ..PlaceOptions::default()
        };
        let model = build_problem(&chain, &resources(cores), &traffic, &opts).unwrap();
        let ilp = solve_ilp(&model.problem).unwrap();
        let brute = solve_brute_force(&model.problem).unwrap();
        assert!(
            (ilp.cost - brute.cost).abs() <= 1e-6 * brute.cost.max(1.0),
            "round {round}: {ilp:?} {brute:?}"
        );
        assert_eq!(
            (ilp.choice, &ilp.shared_nothing),
            (brute.choice, &brute.shared_nothing),
            "round {round}"
        );
        // The full pipeline, including the semantics check, accepts it.
        let (plan, _) = place(&chain, &resources(cores), &traffic, &opts)
            .unwrap_or_else(|e| panic!("round {round}: {e}"));
        assert!((plan.total_cost - brute.cost).abs() <= 1e-6 * brute.cost.max(1.0));
    }
}

#[test]
fn explain_lists_candidates_and_the_choice() {
    let (plan, _) = place(
        &flowmage_chain(400, 150),
        &resources(16),
        &diverse_traffic(1000, 9),
        &PlaceOptions::default(),
    )
    .unwrap();
    let text = explain(&plan);
    assert!(text.contains("=> #1  {src_ip}"), "{text}");
    assert!(text.contains("rejected:"), "{text}");
    assert!(
        text.contains("policer") && text.contains("shared-nothing"),
        "{text}"
    );
    assert!(text.contains("Toeplitz key (40 B)"), "{text}");
}

#[test]
fn explain_snapshot_of_the_flowmage_chain_mentions_every_decision() {
    let (plan, diags) = place(
        &flowmage_chain(400, 150),
        &resources(16),
        &diverse_traffic(20000, 1),
        &PlaceOptions::default(),
    )
    .unwrap();
    let text = explain(&plan);
    println!("{text}");
    for d in &diags {
        println!("{d}");
    }
    for line in [
        "hash on {src_ip}",
        "runner-up {dst_ip}",
        "RETA index (128 entries) depends on: src_ip 7 bit(s)",
    ] {
        assert!(text.contains(line), "{line}\n{text}");
    }
}
