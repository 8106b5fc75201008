//! End-to-end reductions of the golden test NFs (`tests/data/*.c`): every
//! case reduces a chain with a given configuration, and `reduce` itself runs
//! the original and reduced chains over generated packets (every rule's
//! prefixes and ports, TCP/UDP/ICMP/other, malformed frames) and fails with
//! `Mismatch` on any difference in verdicts, output bytes or final state.
//! The checks here add what each reduction must have removed.

use nfc_reducer::{reduce, ReduceInput, ReduceOptions};
use std::path::PathBuf;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

fn cfg(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn nf(id: &str, file: &str, config: Vec<(String, String)>) -> ReduceInput {
    ReduceInput { id: id.into(), sources: vec![data(file)], config, ..Default::default() }
}

struct Outcome {
    ir: String,
    removals: Vec<String>,
    diags: Vec<String>,
    before: u64,
    after: u64,
}

/// Reduce `nfs`; `reduce` proves equivalence by execution, so success here
/// already means identical behaviour on the generated packets.
fn check(nfs: Vec<ReduceInput>, tweak: impl FnOnce(&mut ReduceOptions)) -> Outcome {
    let dir = tempfile::tempdir().unwrap();
    let mut opts = ReduceOptions { out_dir: dir.path().to_path_buf(), verify_packets: 2500, ..Default::default() };
    tweak(&mut opts);
    let (art, chain, diags) = reduce(&nfs, &opts).unwrap_or_else(|e| panic!("reduce failed: {e}"));
    assert!(!art.fell_back);
    let v = art.verification.expect("differential check ran");
    assert!(v.packets > 2500);
    let ir = std::fs::read_to_string(art.ll_path.unwrap()).unwrap();
    Outcome {
        ir,
        removals: chain.removals.iter().map(|r| format!("{}: {}: {}", r.pass, r.nf, r.what)).collect(),
        diags: diags.iter().map(|d| d.to_string()).collect(),
        before: chain.modules[0].ir_instructions_before,
        after: chain.modules[0].ir_instructions_after,
    }
}

fn ids_l3() -> Vec<(String, String)> {
    cfg(&[
        ("rules.len", "3"),
        ("rules.0.src", "10.0.0.0/8"),
        ("rules.0.dst", "192.168.1.0/24"),
        ("rules.0.action", "drop"),
        ("rules.1.src", "172.16.0.0/12"),
        ("rules.1.action", "alert"),
        ("rules.2.dst", "8.8.8.8"),
        ("rules.2.action", "pass"),
        ("default", "pass"),
    ])
}

fn ids_tcp() -> Vec<(String, String)> {
    cfg(&[
        ("rules.len", "3"),
        ("rules.0.src", "10.0.0.0/8"),
        ("rules.0.proto", "tcp"),
        ("rules.0.dport", "22"),
        ("rules.0.action", "drop"),
        ("rules.1.proto", "tcp"),
        ("rules.1.dport", "80-90"),
        ("rules.1.action", "alert"),
        ("rules.2.dst", "192.168.0.0/16"),
        ("rules.2.proto", "tcp"),
        ("rules.2.sport", "1024-65535"),
        ("rules.2.action", "pass"),
        ("default", "pass"),
    ])
}

#[test]
fn ids_with_l3_rules_is_specialised_and_equivalent() {
    let o = check(vec![nf("ids", "ids.c", ids_l3())], |_| {});
    assert!(o.after < o.before, "{} -> {}", o.before, o.after);
    assert!(o.removals.iter().any(|r| r.contains("config variable `rules`")), "{:#?}", o.removals);
    // The rule loop is gone: no load from the rules array remains.
    assert!(!o.ir.contains("@nf0_rules"), "rules array still referenced");
}

#[test]
fn ids_with_tcp_rules_is_equivalent() {
    let o = check(vec![nf("ids", "ids.c", ids_tcp())], |_| {});
    assert!(o.after < o.before);
}
