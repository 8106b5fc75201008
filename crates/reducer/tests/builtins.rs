//! Reductions of the built-in NFs in `nfs/` (ids, firewall, flow_monitor)
//! with configs from their `configs/*.yaml` (and TCP-only configs under
//! `tests/data/configs/`), flattened exactly as the CLI does. `reduce` proves
//! every result by differential execution (verdicts, output bytes, final
//! state); each case here adds what the reduction must have removed.

#[path = "support/builtin.rs"]
mod builtin;

use builtin::builtin_input;
use nfc_reducer::{reduce, ReduceInput, ReduceOptions};
use std::path::Path;

struct Outcome {
    ir: String,
    removals: Vec<String>,
    before: u64,
    after: u64,
}

/// Reduce `nfs` with the LLVM verifier after every pass and the differential
/// check on; success already means zero mismatches.
fn check(nfs: Vec<ReduceInput>) -> Outcome {
    let dir = tempfile::tempdir().unwrap();
    let opts = ReduceOptions {
        out_dir: dir.path().to_path_buf(),
        verify_each_pass: true,
        ..Default::default()
    };
    let (art, chain, _) = reduce(&nfs, &opts).unwrap_or_else(|e| panic!("reduce failed: {e}"));
    assert!(!art.fell_back);
    let v = art.verification.expect("differential check ran");
    assert!(v.packets >= opts.verify_packets, "{v:?}");
    Outcome {
        ir: std::fs::read_to_string(art.ll_path.unwrap()).unwrap(),
        removals: chain
            .removals
            .iter()
            .map(|r| format!("{}: {}: {}", r.pass, r.nf, r.what))
            .collect(),
        before: chain.modules[0].ir_instructions_before,
        after: chain.modules[0].ir_instructions_after,
    }
}

fn cfg(name: &str) -> &Path {
    Path::new(name)
}

/// A config under `tests/data/configs/`.
fn ours(name: &str) -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/configs")
        .join(name)
}

fn has(removals: &[String], pat: &str) -> bool {
    removals.iter().any(|r| r.contains(pat))
}

#[test]
fn builtin_ids_default_rules_are_constants() {
    let o = check(vec![builtin_input("ids", "ids", cfg("default.yaml"))]);
    assert!(o.after * 2 < o.before, "{} -> {}", o.before, o.after);
    assert!(
        has(&o.removals, "config variable `rules`"),
        "{:#?}",
        o.removals
    );
    // The rule loop (its body holds the payload search) is unrolled over the
    // 5 rules; only the payload patterns are still read from the constant rules.
    assert!(has(&o.removals, "unroll-rules"), "{:#?}", o.removals);
    assert!(!o.ir.contains("@nf0_n_rules"), "rule count still read");
    assert!(o.ir.contains("@nf0_rules = internal constant"));
    // The thread-local decode scratch `net` became scalars.
    assert!(
        has(&o.removals, "scratch global `net`"),
        "{:#?}",
        o.removals
    );
}

#[test]
fn builtin_ids_l3_only_drops_port_decode() {
    let o = check(vec![builtin_input("ids", "ids", cfg("l3_only.yaml"))]);
    assert!(o.after * 4 < o.before, "{} -> {}", o.before, o.after);
    assert!(!o.ir.contains("@nf0_rules"), "rules array still referenced");
    // L3-only rules compare no port: no 16-bit byte swap of a port remains.
    assert!(!o.ir.contains("llvm.bswap.i16(i16"), "port decode survived");
}

#[test]
fn builtin_ids_tcp_only_prunes_the_udp_path() {
    let o = check(vec![builtin_input(
        "ids",
        "ids",
        &ours("ids_tcp_only.yaml"),
    )]);
    assert!(o.after * 5 < o.before, "{} -> {}", o.before, o.after);
    // Every rule is TCP: a UDP packet only needs its protocol byte, so no
    // branch to a UDP decoder is left; with a UDP rule (default.yaml) there is.
    let udp_branch = |ir: &str| ir.contains("i8 17, label") || ir.contains("i32 17, label");
    assert!(!udp_branch(&o.ir), "UDP still decoded");
    let with_udp_rule = check(vec![builtin_input("ids", "ids", cfg("default.yaml"))]);
    assert!(udp_branch(&with_udp_rule.ir));
}

#[test]
fn probe_paths_agree_in_process_and_through_clang() {
    // The JIT probe and the clang-built probe object must see the same
    // configuration: both reductions are proven against the original.
    let input = builtin_input("fw", "firewall", &ours("fw_tcp_only.yaml"));
    let dir = tempfile::tempdir().unwrap();
    let mut irs = vec![];
    for in_process in [true, false] {
        let opts = ReduceOptions {
            out_dir: dir.path().join(in_process.to_string()),
            probe_in_process: in_process,
            verify_packets: 1000,
            ..Default::default()
        };
        let (art, _, diags) = reduce(std::slice::from_ref(&input), &opts).unwrap();
        assert!(!diags.iter().any(|d| d.code == "R0107"), "{diags:?}");
        irs.push(std::fs::read_to_string(art.ll_path.unwrap()).unwrap());
    }
    // Compare the code, not debug records or metadata numbering.
    let code = |ir: &str| -> Vec<String> {
        ir.lines()
            .filter(|l| !l.trim_start().starts_with("#dbg") && !l.starts_with('!'))
            .map(|l| {
                // Drop attached metadata and renumber metadata references.
                let l = l.split(", !").next().unwrap_or(l);
                let mut out = String::new();
                let mut in_ref = false;
                for ch in l.chars() {
                    if in_ref && ch.is_ascii_digit() {
                        continue;
                    }
                    in_ref = ch == '!';
                    out.push(ch);
                }
                out
            })
            .collect()
    };
    let (a, b) = (code(&irs[0]), code(&irs[1]));
    let differing: Vec<(&String, &String)> = a.iter().zip(&b).filter(|(x, y)| x != y).collect();
    assert_eq!(a.len(), b.len());
    assert!(
        differing.is_empty(),
        "{:#?}",
        &differing[..differing.len().min(5)]
    );
}

#[test]
fn builtin_firewall_configs_reduce() {
    for c in ["default.yaml", "acl1000.yaml"] {
        let o = check(vec![builtin_input("fw", "firewall", cfg(c))]);
        assert!(o.after < o.before, "{c}: {} -> {}", o.before, o.after);
        assert!(
            has(&o.removals, "config variable `acl`"),
            "{c}: {:#?}",
            o.removals
        );
    }
    let o = check(vec![builtin_input(
        "fw",
        "firewall",
        &ours("fw_tcp_only.yaml"),
    )]);
    assert!(!o.ir.contains("@nf0_acl"), "ACL array still referenced");
}

#[test]
fn builtin_flow_monitor_keeps_its_flow_table_identical() {
    for c in ["default.yaml", "short_idle.yaml"] {
        let o = check(vec![builtin_input("mon", "flow_monitor", cfg(c))]);
        assert!(o.after < o.before, "{c}: {} -> {}", o.before, o.after);
    }
}

#[test]
fn builtin_monitor_then_ids_is_one_module() {
    let o = check(vec![
        builtin_input("mon", "flow_monitor", cfg("default.yaml")),
        builtin_input("ids", "ids", cfg("default.yaml")),
    ]);
    assert_eq!(o.ir.matches("define i32 @nf_process").count(), 1);
    assert!(o.after < o.before, "{} -> {}", o.before, o.after);
}

#[test]
fn builtin_acl_then_port_filter_is_consolidated_and_truncated() {
    let o = check(vec![
        builtin_input("acl", "firewall", cfg("default.yaml")),
        builtin_input("ports", "firewall", &ours("fw_port_filter.yaml")),
    ]);
    assert_eq!(o.ir.matches("define i32 @nf_process").count(), 1);
    assert!(
        !o.ir.contains("define internal i32 @nf1_nf_process"),
        "second firewall not inlined"
    );
    assert!(!o.ir.contains("@nf0_acl") && !o.ir.contains("@nf1_acl"));
    assert!(o.after * 4 < o.before, "{} -> {}", o.before, o.after);
}

/// The proof's packet set is only as strong as the rules it exercises: for
/// every rule of each firewall config, dropping that rule from the config
/// must change some verdict on the packets `reduce` verifies with, so a
/// reduction that lost or changed any rule could not pass.
#[test]
fn proof_packets_observe_every_firewall_rule() {
    use nfc_reducer::packets::{generate, pools_from_config};
    let dir = tempfile::tempdir().unwrap();
    let so = dir.path().join("fw.so");
    let st = std::process::Command::new("clang-19")
        .args(["-O2", "-shared", "-fPIC", "-I"])
        .arg(builtin::nfs_root().join("include"))
        .arg("-o")
        .arg(&so)
        .arg(builtin::builtin_source("firewall"))
        .status()
        .unwrap();
    assert!(st.success());
    let configs = [
        builtin_input("fw", "firewall", cfg("default.yaml")).config,
        builtin_input("fw", "firewall", &ours("fw_tcp_only.yaml")).config,
        builtin_input("fw", "firewall", &ours("fw_port_filter.yaml")).config,
    ];
    for config in configs {
        let pkts = generate(&pools_from_config(&[&config]), 3000, 0x5eed);
        let run = |c: Vec<(String, String)>| {
            nfc_reducer::verify::run_original(&[("fw".into(), so.clone(), c)], &pkts)
                .unwrap()
                .verdicts
        };
        let all = run(config.clone());
        let n: usize = config
            .iter()
            .find(|(k, _)| k == "rules.len")
            .map(|(_, v)| v.parse().unwrap())
            .unwrap();
        for i in 0..n {
            // The config without rule i (later rules renumbered).
            let mut without: Vec<(String, String)> = vec![];
            for (k, v) in &config {
                let Some(rest) = k.strip_prefix("rules.") else {
                    without.push((k.clone(), v.clone()));
                    continue;
                };
                if rest == "len" {
                    without.push((k.clone(), (n - 1).to_string()));
                    continue;
                }
                let (idx, field) = rest.split_once('.').unwrap();
                let idx: usize = idx.parse().unwrap();
                if idx != i {
                    let j = if idx > i { idx - 1 } else { idx };
                    without.push((format!("rules.{j}.{field}"), v.clone()));
                }
            }
            assert_ne!(
                run(without),
                all,
                "rule {i} of {config:?} is never observed"
            );
        }
    }
}
