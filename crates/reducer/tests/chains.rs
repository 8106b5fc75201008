//! End-to-end reductions of the golden test NFs (`tests/data/*.c`): every
//! case reduces a chain with a given configuration, and `reduce` itself runs
//! the original and reduced chains over generated packets (every rule's
//! prefixes and ports, TCP/UDP/ICMP/other, malformed frames) and fails with
//! `Mismatch` on any difference in verdicts, output bytes or final state.
//! The checks here add what each reduction must have removed.

use nfc_reducer::{reduce, ReduceInput, ReduceOptions};
use std::path::PathBuf;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn cfg(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn nf(id: &str, file: &str, config: Vec<(String, String)>) -> ReduceInput {
    ReduceInput {
        id: id.into(),
        sources: vec![data(file)],
        config,
        ..Default::default()
    }
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
    let mut opts = ReduceOptions {
        out_dir: dir.path().to_path_buf(),
        verify_packets: 2500,
        ..Default::default()
    };
    tweak(&mut opts);
    let (art, chain, diags) = reduce(&nfs, &opts).unwrap_or_else(|e| panic!("reduce failed: {e}"));
    assert!(!art.fell_back);
    let v = art.verification.expect("differential check ran");
    assert!(v.packets > 2500);
    let ir = std::fs::read_to_string(art.ll_path.unwrap()).unwrap();
    Outcome {
        ir,
        removals: chain
            .removals
            .iter()
            .map(|r| format!("{}: {}: {}", r.pass, r.nf, r.what))
            .collect(),
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

fn fw_tcp() -> Vec<(String, String)> {
    cfg(&[
        ("rules.len", "3"),
        ("rules.0.proto", "udp"),
        ("rules.0.action", "deny"),
        ("rules.1.proto", "tcp"),
        ("rules.1.dport", "80"),
        ("rules.1.action", "allow"),
        ("rules.2.proto", "tcp"),
        ("rules.2.dport", "443"),
        ("rules.2.action", "allow"),
        ("default", "deny"),
    ])
}

fn fw_mark() -> Vec<(String, String)> {
    cfg(&[
        ("rules.len", "2"),
        ("rules.0.src", "10.0.0.0/8"),
        ("rules.0.action", "deny"),
        ("rules.1.dst", "192.168.0.0/16"),
        ("rules.1.proto", "tcp"),
        ("rules.1.dport", "22"),
        ("rules.1.action", "deny"),
        ("default", "allow"),
        ("mark_dscp", "46"),
    ])
}

#[test]
fn ids_with_l3_rules_is_specialised_and_equivalent() {
    let o = check(vec![nf("ids", "ids.c", ids_l3())], |_| {});
    assert!(o.after * 4 < o.before, "{} -> {}", o.before, o.after);
    assert!(
        o.removals
            .iter()
            .any(|r| r.contains("config variable `rules`")),
        "{:#?}",
        o.removals
    );
    assert!(
        o.removals
            .iter()
            .any(|r| r.contains("scratch global `net`")),
        "{:#?}",
        o.removals
    );
    // The rule loop is unrolled and folded: the rules array is no longer read.
    assert!(!o.ir.contains("@nf0_rules"), "rules array still referenced");
    // With L3-only rules no port is ever compared: no 16-bit byte swap of a port remains.
    assert!(!o.ir.contains("llvm.bswap.i16(i16"), "port decode survived");
}

#[test]
fn ids_with_tcp_rules_drops_udp_port_decode() {
    let o = check(vec![nf("ids", "ids.c", ids_tcp())], |_| {});
    assert!(
        // Per-path specialisation gives UDP (17) its own copy, where the TCP-only
        // rules fold away; per-path pruning does it when the copy is not made.
        o.removals
            .iter()
            .any(|r| r.starts_with("unused-logic") && r.contains("infeasible"))
            || o.removals
                .iter()
                .any(|r| r.starts_with("specialise-paths") && r.contains("== 17")),
        "{:#?}",
        o.removals
    );
}

#[test]
fn firewall_pair_is_consolidated_and_overwritten_writes_sink() {
    let o = check(
        vec![
            nf("fw1", "firewall.c", fw_mark()),
            nf("fw2", "firewall.c", fw_tcp()),
        ],
        |_| {},
    );
    assert!(
        o.removals.iter().any(|r| r.starts_with("packet-alias")),
        "{:#?}",
        o.removals
    );
    assert!(
        o.removals
            .iter()
            .any(|r| r.starts_with("overwritten-logic")),
        "{:#?}",
        o.removals
    );
    // One module, one nf_process: both firewalls' symbols are internal.
    assert_eq!(o.ir.matches("define i32 @nf_process").count(), 1);
    assert!(
        !o.ir.contains("define i32 @nf0_nf_process")
            && !o.ir.contains("define i32 @nf1_nf_process")
    );
}

#[test]
fn monitor_then_ids_keeps_flow_state_identical() {
    let mon = cfg(&[("log_every", "0")]);
    let o = check(
        vec![nf("mon", "monitor.c", mon), nf("ids", "ids.c", ids_tcp())],
        |_| {},
    );
    // The monitor's flow table and the IDS counters are compared by digest in `reduce`.
    assert!(
        o.diags
            .iter()
            .any(|d| d.contains("matches the original") && d.contains("final state")),
        "{:#?}",
        o.diags
    );
}

#[test]
fn ttl_guard_write_is_removed_from_drop_paths() {
    let o = check(
        vec![nf(
            "ttl",
            "ttl_guard.c",
            cfg(&[("drop_udp", "1"), ("min_ttl", "3")]),
        )],
        |_| {},
    );
    assert!(
        o.removals
            .iter()
            .any(|r| r.starts_with("overwritten-logic")),
        "{:#?}",
        o.removals
    );
}

#[test]
fn dump_after_returns_the_ir_of_that_pass() {
    let dir = tempfile::tempdir().unwrap();
    let opts = ReduceOptions {
        out_dir: dir.path().into(),
        dump_after: Some("consolidate".into()),
        verify_packets: 200,
        ..Default::default()
    };
    let (art, _, _) = reduce(&[nf("fw", "firewall.c", fw_tcp())], &opts).unwrap();
    let dump = art.dump.expect("dump");
    // Right after consolidation the NF's process function is still there, renamed.
    assert!(
        dump.contains("define internal i32 @nf0_nf_process"),
        "{}",
        &dump[..dump.len().min(400)]
    );
    let opts = ReduceOptions {
        out_dir: dir.path().into(),
        dump_after: Some("no-such-pass".into()),
        ..Default::default()
    };
    let err = reduce(&[nf("fw", "firewall.c", fw_tcp())], &opts).unwrap_err();
    assert!(
        err.to_string().contains("unknown pass `no-such-pass`"),
        "{err}"
    );
}

#[test]
fn rejected_config_names_the_nf_and_best_effort_falls_back() {
    let dir = tempfile::tempdir().unwrap();
    let bad = cfg(&[("rules.len", "1"), ("rules.0.proto", "sctp")]);
    let opts = ReduceOptions {
        out_dir: dir.path().into(),
        ..Default::default()
    };
    let err = reduce(&[nf("edge-fw", "firewall.c", bad.clone())], &opts).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("edge-fw") && msg.contains("bad protocol: rules.0.proto"),
        "{msg}"
    );
    let opts = ReduceOptions {
        out_dir: dir.path().into(),
        best_effort: true,
        ..Default::default()
    };
    let (art, chain, diags) = reduce(&[nf("edge-fw", "firewall.c", bad)], &opts).unwrap();
    assert!(art.fell_back && art.so_path.is_none());
    assert_eq!(art.original_sos.len(), 1);
    assert!(chain.modules[0]
        .so_path
        .as_deref()
        .unwrap()
        .ends_with(".orig.so"));
    assert!(
        diags
            .iter()
            .any(|d| d.is_error() && d.message.contains("edge-fw")),
        "{diags:?}"
    );
}

#[test]
fn textual_ir_input_is_accepted_and_broken_ir_is_a_typed_error() {
    let dir = tempfile::tempdir().unwrap();
    let ll = dir.path().join("fw.ll");
    let st = std::process::Command::new("clang-19")
        .args([
            "-O0",
            "-Xclang",
            "-disable-O0-optnone",
            "-emit-llvm",
            "-S",
            "-I",
        ])
        .arg(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../nfs/include"))
        .arg("-o")
        .arg(&ll)
        .arg(data("firewall.c"))
        .status()
        .unwrap();
    assert!(st.success());
    let input = ReduceInput {
        id: "fw".into(),
        ll: Some(ll.clone()),
        config: fw_tcp(),
        ..Default::default()
    };
    let opts = ReduceOptions {
        out_dir: dir.path().join("out"),
        verify_packets: 500,
        ..Default::default()
    };
    let (art, _, _) = reduce(&[input], &opts).unwrap();
    assert!(art.verification.is_some());
    std::fs::write(&ll, "define i32 @nf_process( {").unwrap();
    let input = ReduceInput {
        id: "fw".into(),
        ll: Some(ll),
        so_path: Some(art.so_path.unwrap()),
        ..Default::default()
    };
    let err = reduce(&[input], &opts).unwrap_err();
    assert!(
        matches!(err, nfc_reducer::ReduceError::Parse { .. }),
        "{err}"
    );
}
