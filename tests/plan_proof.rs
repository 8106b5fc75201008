//! The plan proof over the whole library: every nfs/ NF (with its shipped
//! ground-truth facts and default config) and every example chain (with the
//! analyzer's facts), placed for 2 and 4 cores and proven by differential
//! execution on the proof's bidirectional, port-reuse and closed-loop
//! traffic; and wrong facts, which the proof must reject.
//!
//! Click elements (`nfs/click/`) are C++ against Click's API: the reference
//! executor runs only NFs built against `nfs/include/nf.h`, so none of them
//! can be proven (`nfc build x.click` says so with P203); the test asserts
//! that the list of such elements is what it expects.

use nfc::driver::{self, Workspace};
use nfc::plan_proof::{prove_and_repair, ProofMode, ProofOptions, Verdict};
use nfc_core::facts::Field;
use nfc_core::plan::{Plan, Sharing};
use nfc_core::{ChainSpec, Facts};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// One workspace for the whole test binary (NF objects are cached by hash).
fn ws() -> Workspace {
    Workspace::new(Path::new(env!("CARGO_TARGET_TMPDIR")).join("plan-proof-ws"))
}

/// A one-NF chain running `nf` with its default config on `cores` cores.
fn one_nf_chain(nf: &nfc_nfs::BuiltinNf, cores: u32) -> ChainSpec {
    let config = nf
        .default_config()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .unwrap_or_default();
    let config: String = config
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| format!("      {l}\n"))
        .collect();
    let config = if config.is_empty() {
        String::new()
    } else {
        format!("    config:\n{config}")
    };
    let yaml = format!(
        "name: {n}-alone\nnfs:\n  - id: {n}\n    nf: {n}\n{config}chain: [{n}]\nresources:\n  cores: {cores}\ntraffic:\n  synthetic: {{flows: 800, packets: 20000, zipf: 1.0, mix: {{tcp: 0.6, udp: 0.3, icmp: 0.1}}, bidirectional: 0.3, src_hosts: 40, seed: 5}}\n",
        n = nf.name
    );
    driver::parse_chain_text(&yaml, &format!("{}.yaml", nf.name))
        .unwrap_or_else(|e| panic!("{}: {e:?}", nf.name))
}

fn opts(mode: ProofMode) -> ProofOptions {
    ProofOptions { mode, budget: 8000 }
}

/// Place with `facts`, then prove (strict): the emitted plan and the proof.
fn place_and_prove(
    chain: &ChainSpec,
    facts: &[Facts],
    mode: ProofMode,
) -> (
    Plan,
    Vec<nfc_core::Diagnostic>,
    nfc::plan_proof::ProofSummary,
) {
    let traffic = driver::traffic_profile(chain).unwrap();
    let (plan, _) =
        driver::place_chain(chain, facts, &traffic, &driver::PlaceOptions::default()).unwrap();
    prove_and_repair(chain, facts, plan, &ws(), &opts(mode))
        .unwrap_or_else(|e| panic!("{}: {e:?}", chain.name))
}

fn sharing_of(plan: &Plan, nf: &str) -> Sharing {
    plan.nfs.iter().find(|n| n.nf == nf).unwrap().sharing
}

fn last_verdict(s: &nfc::plan_proof::ProofSummary) -> &Verdict {
    &s.runs.last().expect("the proof ran").verdict
}

#[test]
fn every_library_nf_is_proven_with_its_facts_at_2_and_4_cores() {
    let mut split_proven = vec![];
    for nf in nfc_nfs::catalog() {
        let facts = nfc_nfs::load_facts(&nf.facts_path).unwrap();
        for cores in [2, 4] {
            let chain = one_nf_chain(&nf, cores);
            let mut f = facts.clone();
            f.nf = nf.name.clone();
            let (plan, diags, summary) = place_and_prove(&chain, &[f], ProofMode::Strict);
            assert!(
                summary.unproven.is_none(),
                "{}: {:?}",
                nf.name,
                summary.unproven
            );
            assert!(
                !matches!(last_verdict(&summary), Verdict::Rejected(_)),
                "{} at {cores} cores: {summary:?}",
                nf.name
            );
            // Ground truth is right: the proof pins nothing.
            assert!(
                summary.pinned_shared.is_empty(),
                "{} at {cores} cores: the proof rejected the ground-truth plan: {diags:?}",
                nf.name
            );
            let mode = sharing_of(&plan, &nf.name);
            if !facts.splittable() && facts.stateful {
                assert_eq!(mode, Sharing::Shared, "{} has split hazards", nf.name);
            }
            if mode != Sharing::Shared {
                assert!(matches!(last_verdict(&summary), Verdict::Proven));
                split_proven.push(format!("{}@{cores}", nf.name));
            }
        }
    }
    // The proof really ran on split layouts (not only trivially): every
    // stateless NF and every stateful one whose key RSS can hash, at both
    // core counts. (conn_limiter and learning_bridge need symmetry on a key
    // RSS cannot hash symmetrically, heavy_hitter and nat have split hazards.)
    let expect: Vec<String> = [
        "arp_responder",
        "firewall",
        "flow_counter",
        "flow_monitor",
        "icmp_echo",
        "ids",
        "l2fwd",
        "maglev",
        "policer",
        "port_scan_detector",
        "rate_limiter",
        "src_ip_counter",
    ]
    .iter()
    .flat_map(|n| [format!("{n}@2"), format!("{n}@4")])
    .collect();
    assert_eq!(split_proven, expect);
}

#[test]
fn click_elements_are_not_runnable_by_the_executor() {
    let names: Vec<String> = nfc_nfs::click_elements()
        .into_iter()
        .map(|e| e.name)
        .collect();
    assert_eq!(names, ["flowcounter", "ipfilter", "portscandetector"]);
    for e in nfc_nfs::click_elements() {
        assert!(
            e.sources
                .iter()
                .all(|s| s.extension().is_some_and(|x| x == "cc" || x == "hh")),
            "{}: a C element would be runnable and must join the proof test",
            e.name
        );
    }
}

#[test]
fn every_example_chain_is_proven_at_2_and_4_cores() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    assert!(files.len() >= 4);
    let aopts = driver::AnalyzeOptions::default();
    for file in &files {
        let (mut chain, _) = driver::load_chain(file).unwrap();
        for cores in [2, 4] {
            chain.resources.cores = cores;
            let (facts, _) = driver::analyze_chain(&chain, &aopts).unwrap();
            let (plan, diags, summary) = place_and_prove(&chain, &facts, ProofMode::Strict);
            let name = file.display();
            assert!(summary.unproven.is_none(), "{name}: {summary:?}");
            assert!(
                !matches!(last_verdict(&summary), Verdict::Rejected(_)),
                "{name} at {cores} cores: {summary:?} {diags:?}"
            );
            assert_eq!(plan.cores, cores);
        }
    }
}

/// FlowMage's decision for its 3-NF chain survives the proof: psd and the
/// flow counter shared-nothing on src_ip, the policer shared.
#[test]
fn flowmage_3nf_plan_is_proven_split() {
    let (chain, _) = driver::load_chain(&root().join("examples/flowmage-3nf.yaml")).unwrap();
    let (facts, _) = driver::analyze_chain(&chain, &driver::AnalyzeOptions::default()).unwrap();
    let (plan, _, summary) = place_and_prove(&chain, &facts, ProofMode::Strict);
    assert_eq!(plan.rss.fields, vec![Field::SrcIp]);
    assert_eq!(sharing_of(&plan, "psd"), Sharing::SharedNothing);
    assert_eq!(sharing_of(&plan, "counter"), Sharing::SharedNothing);
    assert_eq!(sharing_of(&plan, "policer"), Sharing::Shared);
    assert!(
        matches!(last_verdict(&summary), Verdict::Proven),
        "{summary:?}"
    );
    assert!(summary.pinned_shared.is_empty());
}

fn nat_chain() -> ChainSpec {
    let nat = nfc_nfs::builtin("nat").unwrap();
    one_nf_chain(&nat, 2)
}

/// The NAT's facts as they were before split hazards: "5-tuple, symmetric".
fn naive_nat_facts() -> Facts {
    let mut f = nfc_nfs::load_facts(&nfc_nfs::builtin("nat").unwrap().facts_path).unwrap();
    f.split_hazards.clear();
    f
}

#[test]
fn nat_with_naive_facts_is_rejected_and_kept_shared() {
    let chain = nat_chain();
    let facts = naive_nat_facts();
    // Without the proof the placer would split it.
    let traffic = driver::traffic_profile(&chain).unwrap();
    let (naive, _) = driver::place_chain(
        &chain,
        std::slice::from_ref(&facts),
        &traffic,
        &Default::default(),
    )
    .unwrap();
    assert_eq!(sharing_of(&naive, "nat"), Sharing::SharedNothing);
    let (plan, diags, summary) = place_and_prove(&chain, &[facts], ProofMode::Strict);
    assert_eq!(sharing_of(&plan, "nat"), Sharing::Shared);
    assert_eq!(summary.pinned_shared, ["nat"]);
    let Verdict::Rejected(m) = &summary.runs[0].verdict else {
        panic!("{summary:?}")
    };
    assert_eq!(m.nf.as_deref(), Some("nat"));
    let d = diags.iter().find(|d| d.code == "P201").expect("P201");
    assert!(d.message.contains("`nat`"), "{}", d.message);
    assert!(d.span.is_some(), "located at the NF");
}

#[test]
fn nat_as_analyzed_is_never_split_unproven() {
    let chain = nat_chain();
    let (facts, _) = driver::analyze_chain(&chain, &driver::AnalyzeOptions::default()).unwrap();
    let (plan, _, summary) = place_and_prove(&chain, &facts, ProofMode::Strict);
    if sharing_of(&plan, "nat") != Sharing::Shared {
        assert!(
            matches!(last_verdict(&summary), Verdict::Proven),
            "{summary:?}"
        );
    }
    assert!(!matches!(last_verdict(&summary), Verdict::Rejected(_)));
}

/// A wrong flow key forced into the facts: the port-scan detector counts
/// ports per source, but the facts claim the 5-tuple, so the placer splits a
/// scanning source over the cores. The proof rejects it and names psd.
#[test]
fn a_forced_wrong_flow_key_is_rejected() {
    let psd = nfc_nfs::builtin("port_scan_detector").unwrap();
    let chain = one_nf_chain(&psd, 2);
    let mut facts = nfc_nfs::load_facts(&psd.facts_path).unwrap();
    facts.flow_key = Field::FIVE_TUPLE.to_vec();
    facts.flow_key.sort();
    let (plan, diags, summary) = place_and_prove(&chain, &[facts.clone()], ProofMode::Strict);
    assert_eq!(summary.pinned_shared, ["port_scan_detector"], "{summary:?}");
    assert_eq!(sharing_of(&plan, "port_scan_detector"), Sharing::Shared);
    assert!(diags.iter().any(|d| d.code == "P201"), "{diags:?}");
    // Warn keeps the wrong plan, with the same diagnostic.
    let (plan, diags, _) = place_and_prove(&chain, &[facts], ProofMode::Warn);
    assert_eq!(
        sharing_of(&plan, "port_scan_detector"),
        Sharing::SharedNothing
    );
    assert!(diags.iter().any(|d| d.code == "P201"));
}

/// A wrong key on rate state: the policer's buckets are per destination;
/// facts claiming the source address let the placer split a destination's
/// bucket over the cores, each letting through its own burst. Rejected.
#[test]
fn a_forced_wrong_policer_key_is_rejected() {
    let policer = nfc_nfs::builtin("policer").unwrap();
    let chain = one_nf_chain(&policer, 2);
    let mut facts = nfc_nfs::load_facts(&policer.facts_path).unwrap();
    facts.flow_key = vec![Field::SrcIp];
    let (plan, _, summary) = place_and_prove(&chain, &[facts], ProofMode::Strict);
    assert_eq!(summary.pinned_shared, ["policer"], "{summary:?}");
    assert_eq!(sharing_of(&plan, "policer"), Sharing::Shared);
}
