//! CLI runs snapshotted with stdout, stderr and exit code (insta-cmd).
//! Update snapshots with `INSTA_UPDATE=always cargo test --test cli` and review the diff.

use insta_cmd::{assert_cmd_snapshot, get_cargo_bin};
use std::path::Path;
use std::process::Command;

fn nfc() -> Command {
    let mut c = Command::new(get_cargo_bin("nfc"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

/// Every file in tests/bad/ produces its intended diagnostic and exit code 1.
#[test]
fn bad_inputs_produce_diagnostics() {
    insta::glob!("bad/*.yaml", |path| {
        let rel = Path::new("tests/bad").join(path.file_name().unwrap());
        assert_cmd_snapshot!(nfc().arg("check").arg(&rel));
    });
}

/// Chains that check clean but cannot be placed: each file in
/// tests/data/place-bad/ gets a located placement diagnostic and exit 1 from
/// `nfc explain`.
#[test]
fn unplaceable_chains_produce_diagnostics() {
    insta::glob!("data/place-bad/*.yaml", |path| {
        let rel = Path::new("tests/data/place-bad").join(path.file_name().unwrap());
        assert_cmd_snapshot!(nfc().arg("explain").arg(&rel));
    });
}

/// An NF the analyzer cannot read is placed once the operator pins it shared.
#[test]
fn unreadable_nf_is_placed_when_pinned_shared() {
    let dir = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/place-bad/not_an_nf.c");
    let chain = dir.path().join("pinned.yaml");
    std::fs::write(
        &chain,
        format!(
            "name: pinned\nnfs:\n  - id: mystery\n    source: [{}]\n    sharing: shared\nchain: [mystery]\ntraffic:\n  synthetic: {{flows: 64, packets: 500, seed: 1}}\n",
            src.display()
        ),
    )
    .unwrap();
    let out = nfc().arg("explain").arg(&chain).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let chosen = stdout
        .lines()
        .find(|l| l.starts_with("=>"))
        .unwrap_or_else(|| panic!("no chosen plan in {stdout}"));
    assert!(chosen.contains("shared [mystery]"), "{chosen}");
    assert!(chosen.contains("shared-nothing []"), "{chosen}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("A0103"), "{stderr}");
}

/// `nfc run` on a directory that holds no flash deployment.
#[test]
fn run_on_a_directory_without_a_deployment() {
    let o = nfc().args(["run", "tests/data"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("E0600"), "{stderr}");
}

/// The same diagnostics as JSON for tools.
#[test]
fn bad_input_as_json() {
    assert_cmd_snapshot!(nfc().args(["--format", "json", "check", "tests/bad/unknown-nf.yaml"]));
}

#[test]
fn examples_check_clean() {
    let mut files: Vec<_> =
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
            .map(|p| Path::new("examples").join(p.file_name().unwrap()))
            .collect();
    files.sort();
    assert!(files.len() >= 3);
    assert_cmd_snapshot!(nfc().arg("check").args(&files));
}

#[test]
fn help_is_complete() {
    assert_cmd_snapshot!(nfc().arg("--help"));
}

#[test]
fn build_help_is_complete() {
    assert_cmd_snapshot!(nfc().args(["build", "--help"]));
}

#[test]
fn missing_chain_file() {
    assert_cmd_snapshot!(nfc().args(["check", "tests/bad/no-such-file.yaml"]));
}

/// FlowMage Fig. 7 through the CLI: an operator's .click is rewritten in place
/// with the RSS configuration and each stateful element's sharing mode.
#[test]
fn click_config_is_rewritten_for_sharing() {
    let out = tempfile::tempdir().unwrap();
    let status = nfc()
        .args([
            "build",
            "tests/data/operator.click",
            "--target",
            "fastclick",
            "--source-root",
            "nfs/click",
            "--no-cache",
            "-o",
        ])
        .arg(out.path())
        .status()
        .unwrap();
    assert!(status.success());
    let rewritten = std::fs::read_to_string(out.path().join("operator.click")).unwrap();
    insta::assert_snapshot!(rewritten);
}

/// The analyzer's JSON contract: the keys the evaluation harness reads.
#[test]
fn analyze_json_has_the_stable_keys() {
    let output = nfc()
        .args([
            "--format",
            "json",
            "analyze",
            "nfs/flow_counter",
            "nfs/policer",
            "--no-cache",
        ])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let arr = v.as_array().unwrap();
    assert_eq!(arr.len(), 2);
    for nf in arr {
        for key in [
            "nf",
            "stateful",
            "flow_key",
            "symmetric",
            "intensity",
            "pointer_chasing",
            "evidence",
        ] {
            assert!(nf.get(key).is_some(), "missing `{key}` in {nf}");
        }
    }
    assert_eq!(
        arr[0]["flow_key"],
        serde_json::json!(["src_ip", "dst_ip", "src_port", "dst_port", "proto"])
    );
    assert_eq!(arr[1]["flow_key"], serde_json::json!(["dst_ip"]));
    assert_eq!(arr[1]["intensity"], "per-packet");
}

// ------------------------------------------------------------ --emit reduced

/// Reduce-stage runs: a scratch directory for outputs and the build cache,
/// and filters that replace it and the volatile numbers of the summary.
struct ReduceRun {
    dir: tempfile::TempDir,
}

impl ReduceRun {
    fn new() -> Self {
        ReduceRun {
            dir: tempfile::tempdir().unwrap(),
        }
    }
    fn out(&self) -> std::path::PathBuf {
        self.dir.path().join("out")
    }
    /// `nfc build <chain> --emit reduced -o <out> --cache-dir <cache>` plus `extra`.
    fn build(&self, chain: &str, extra: &[&str]) -> Command {
        let mut c = nfc();
        c.args(["build", chain, "--emit", "reduced", "-o"])
            .arg(self.out())
            .arg("--cache-dir")
            .arg(self.dir.path().join("cache"))
            .args(extra);
        c
    }
    fn settings(&self) -> insta::Settings {
        let mut s = insta::Settings::clone_current();
        s.add_filter(
            &regex_escape(&self.dir.path().display().to_string()),
            "[TMP]",
        );
        // Counts depend on the reducer's passes, which evolve; the tests below
        // check the numbers that matter (packets, mismatches) from the JSON.
        s.add_filter(r"passes run: .*", "passes run: [PASSES]");
        s.add_filter(r"passes, in order: .*", "passes, in order: [PASSES]");
        s.add_filter(r"changes reported: .*", "changes reported: [CHANGES]");
        s.add_filter(r"running \d+ passes", "running [N] passes");
        s.add_filter(r"\b\d+ (packets|ms|dropped|forwarded)\b", "[N] $1");
        s.add_filter(r"\b\d+ → \d+ \(\d+% removed\)", "[N] → [N] ([P]% removed)");
        s
    }
}

fn regex_escape(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '/' || c == '_' || c == '-' {
                c.to_string()
            } else {
                format!("\\{c}")
            }
        })
        .collect()
}

/// `--emit reduced` on a firewall → IDS chain: progress and summary on
/// stderr, the reduced .ll/.so, a JSON report that parses and says what was
/// removed, and a chain file for the reduced module.
#[test]
fn emit_reduced_writes_artifacts_and_summary() {
    let run = ReduceRun::new();
    run.settings().bind(|| {
        assert_cmd_snapshot!(run.build("tests/data/reduce/fw-ids.yaml", &[]));
    });
    let out = run.out();
    for f in [
        "reduced.ll",
        "reduced.so",
        "reduced.report.json",
        "reduced.chain.yaml",
    ] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    let ir = std::fs::read_to_string(out.join("reduced.ll")).unwrap();
    assert!(ir.contains("define") && ir.contains("@nf_process"));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("reduced.report.json")).unwrap())
            .unwrap();
    assert_eq!(report["fell_back"], false);
    let removals = report["chain"]["removals"].as_array().unwrap();
    assert!(!removals.is_empty());
    for r in removals {
        assert!(
            r["pass"].is_string() && r["nf"].is_string() && r["what"].is_string(),
            "{r}"
        );
    }
    assert!(report["verification"]["packets"].as_u64().unwrap() > 1000);
}

/// The same run as JSON: the summary lists every pass of the pipeline and
/// shrinks the IR.
#[test]
fn emit_reduced_json_summary() {
    let run = ReduceRun::new();
    let output = nfc()
        .args(["--format", "json"])
        .args(run.build("tests/data/reduce/fw-ids.yaml", &[]).get_args())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let s = &v["reduced"]["summary"];
    let passes: Vec<&str> = s["passes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    assert_eq!(passes, nfc::driver::reduce_pass_names());
    assert!(s["instructions_after"].as_u64() < s["instructions_before"].as_u64());
    assert!(s["blocks_after"].as_u64() < s["blocks_before"].as_u64());
    assert_eq!(s["nfs"], serde_json::json!(["fw", "ids"]));
}

/// `--dump-after <pass>` prints the IR after that pass on stdout.
#[test]
fn dump_after_prints_ir() {
    let names = nfc::driver::reduce_pass_names();
    let pass = names.iter().find(|n| !n.starts_with("llvm-")).unwrap();
    let run = ReduceRun::new();
    let output = run
        .build("tests/data/reduce/fw-ids.yaml", &["--dump-after", pass])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let ir = String::from_utf8(output.stdout).unwrap();
    assert!(ir.contains("define"), "{ir}");
    assert!(
        !ir.contains("wrote "),
        "the file list must not mix with the IR"
    );
}

/// An unknown pass name is a diagnostic listing the real ones.
#[test]
fn dump_after_unknown_pass() {
    let run = ReduceRun::new();
    let output = run
        .build(
            "tests/data/reduce/fw-ids.yaml",
            &["--dump-after", "no-such-pass"],
        )
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    for n in nfc::driver::reduce_pass_names() {
        assert!(stderr.contains(n), "{n} not listed in {stderr}");
    }
    run.settings().bind(|| {
        assert_cmd_snapshot!(run.build(
            "tests/data/reduce/fw-ids.yaml",
            &["--dump-after", "no-such-pass"]
        ));
    });
}

/// Chains the reducer cannot take: strict fails with a diagnostic naming the
/// NF and why (exit 1); best-effort warns the same and builds unreduced.
#[test]
fn strict_and_best_effort_on_unreducible_chains() {
    for chain in [
        // The firewall's nf_init rejects a rule's protocol.
        "tests/data/reduce/bad-config.yaml",
        // A two-port NF in the middle of a line.
        "tests/data/reduce/lb-line.yaml",
        // An NF that compiles but does not implement the nf.h ABI.
        "tests/data/reduce/no-entry.yaml",
    ] {
        for mode in ["strict", "best-effort"] {
            let run = ReduceRun::new();
            let name = format!(
                "{}-{mode}",
                Path::new(chain).file_stem().unwrap().to_string_lossy()
            );
            let mut s = run.settings();
            s.set_snapshot_suffix(name);
            s.bind(|| {
                assert_cmd_snapshot!(run.build(chain, &[&format!("--reduce={mode}")]));
            });
            let report = run.out().join("reduced.report.json");
            assert!(!run.out().join("reduced.so").exists());
            if mode == "best-effort" {
                let v: serde_json::Value =
                    serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap();
                assert_eq!(v["fell_back"], true);
                assert!(!v["diagnostics"].as_array().unwrap().is_empty());
            }
        }
    }
}

/// A DAG has its maximal linear segments reduced (fw → lb here; the fan-out
/// and fan-in NFs stay), in strict mode too, and the reduced chain file it
/// writes runs: the whole chain was checked against the original.
#[test]
fn dag_segments_are_reduced() {
    let run = ReduceRun::new();
    let o = run.build("examples/flash-dag.yaml", &[]).output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(run.out().join("fw-to-lb/reduced.so").is_file(), "{stderr}");
    assert!(stderr.contains("reduced fw → lb into"), "{stderr}");
    assert!(
        stderr.contains("reduced chain (1 module) checked against the original"),
        "{stderr}"
    );
    let check = nfc()
        .arg("check")
        .arg(run.out().join("reduced.chain.yaml"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&check.stdout);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    assert!(stdout.contains("with 4 NFs and 4 links"), "{stdout}");
}

/// A .click configuration is Click elements, which the reducer cannot take.
#[test]
fn emit_reduced_on_click_config() {
    let run = ReduceRun::new();
    run.settings().bind(|| {
        assert_cmd_snapshot!(run.build(
            "tests/data/operator.click",
            &[
                "--target",
                "fastclick",
                "--source-root",
                "nfs/click",
                "--no-cache"
            ]
        ));
    });
}

/// The reduced module is runnable: `nfc run` over the same trace through the
/// original chain and through reduced.chain.yaml writes identical pcaps.
#[test]
fn reduced_module_runs_like_the_original_chain() {
    let chain = "tests/data/reduce/fw-ids.yaml";
    let run = ReduceRun::new();
    let dir = run.dir.path();
    let cache = dir.join("cache");
    let ok = |c: &mut Command| {
        let o = c.output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    ok(nfc()
        .args(["trace", "gen", "--chain", chain, "-o"])
        .arg(dir.join("trace.pcap")));
    ok(&mut run.build(chain, &[]));
    let original = ok(nfc()
        .args(["run", chain, "--pcap"])
        .arg(dir.join("trace.pcap"))
        .arg("--out")
        .arg(dir.join("original.pcap"))
        .arg("--cache-dir")
        .arg(&cache));
    let reduced = ok(nfc()
        .arg("run")
        .arg(run.out().join("reduced.chain.yaml"))
        .arg("--pcap")
        .arg(dir.join("trace.pcap"))
        .arg("--out")
        .arg(dir.join("reduced.pcap"))
        .arg("--cache-dir")
        .arg(&cache));
    // The trace exercises both NFs' drop rules, so equality is not vacuous.
    let totals = |s: &str| s.lines().next().unwrap().to_string();
    assert_eq!(totals(&original), totals(&reduced));
    assert!(!original.contains(" 0 dropped"), "{original}");
    let a = std::fs::read(dir.join("original.pcap")).unwrap();
    let b = std::fs::read(dir.join("reduced.pcap")).unwrap();
    assert!(a.len() > 24, "no packets left the chain");
    assert!(a == b, "output pcaps differ");

    // The reduced chain runs but cannot be analysed: its NF is machine code.
    let analyze = nfc()
        .arg("analyze")
        .arg(run.out().join("reduced.chain.yaml"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&analyze.stderr);
    assert_eq!(analyze.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("E0504"), "{stderr}");
}

/// Logging in a user NF is reported and kept by default, and removed (as a
/// `slice` removal in the report) with `--strip-observability`.
#[test]
fn strip_observability_removes_logging_only_when_asked() {
    let chain = "tests/data/reduce/logger-fw.yaml";
    let calls_fprintf = |run: &ReduceRun| {
        std::fs::read_to_string(run.out().join("reduced.ll"))
            .unwrap()
            .lines()
            .any(|l| l.contains("call") && l.contains("@fprintf("))
    };
    let kept = ReduceRun::new();
    let o = kept.build(chain, &[]).output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(
        stderr.contains("warning[R0101]") && stderr.contains("fprintf"),
        "{stderr}"
    );
    assert!(stderr.contains("--strip-observability"), "{stderr}");
    assert!(calls_fprintf(&kept));

    let stripped = ReduceRun::new();
    let o = stripped
        .build(chain, &["--strip-observability"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(!stderr.contains("R0101"), "{stderr}");
    assert!(!calls_fprintf(&stripped));
    let report: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(stripped.out().join("reduced.report.json")).unwrap(),
    )
    .unwrap();
    assert!(report["chain"]["removals"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["pass"] == "slice" && r["what"].as_str().unwrap().contains("fprintf")));
}

/// A wrong flow key forced into the facts: the placer splits the port-scan
/// detector, the plan proof rejects the split with a diagnostic located at
/// the NF, naming the flow and the first differing packet, and the emitted
/// plan keeps psd shared.
#[test]
fn plan_proof_rejects_a_forced_wrong_flow_key() {
    assert_cmd_snapshot!(nfc().args([
        "explain",
        "tests/data/proof/psd-wrong-key.yaml",
        "--facts",
        "tests/data/proof/psd-wrong-key.facts.json",
        "--no-cache",
    ]));
}

/// `nfc explain` of psd pinned to a split that its forced wrong key makes
/// wrong, with `extra` arguments.
fn explain_pinned_wrong_split(extra: &[&str]) -> std::process::Output {
    nfc()
        .args([
            "explain",
            "tests/data/proof/psd-pinned-split.yaml",
            "--facts",
            "tests/data/proof/psd-wrong-key.facts.json",
            "--no-cache",
        ])
        .args(extra)
        .output()
        .unwrap()
}

/// The operator pinned the split the proof rejects: strict fails (P202, exit 1).
#[test]
fn plan_proof_fails_a_pinned_wrong_split() {
    let o = explain_pinned_wrong_split(&[]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("P202"), "{stderr}");
    // Warn keeps the pinned plan and says it is unproven.
    let o = explain_pinned_wrong_split(&["--plan-proof=warn"]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("P201"), "{stderr}");
    assert!(String::from_utf8_lossy(&o.stdout).contains("REJECTED"));
}

/// A synthetic trace of `packets` packets for examples/flowmage-3nf.yaml.
fn gen_flowmage_3nf_trace(pcap: &Path, packets: u32) {
    let st = nfc()
        .args([
            "trace",
            "gen",
            "--chain",
            "examples/flowmage-3nf.yaml",
            "--packets",
        ])
        .arg(packets.to_string())
        .arg("-o")
        .arg(pcap)
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
}

/// Bad `--plan` and `--facts` files are diagnostics with exit 1, never panics.
#[test]
fn bad_plan_and_facts_files() {
    let dir = tempfile::tempdir().unwrap();
    let pcap = dir.path().join("t.pcap");
    gen_flowmage_3nf_trace(&pcap, 100);
    for (plan, code) in [
        ("tests/data/proof/bad-plan.json", "E0203"),
        ("tests/data/proof/short-key-plan.json", "E0203"),
        ("tests/data/proof/no-such-plan.json", "E0203"),
    ] {
        let o = nfc()
            .args([
                "run",
                "examples/flowmage-3nf.yaml",
                "--plan",
                plan,
                "--pcap",
            ])
            .arg(&pcap)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{plan}: {stderr}");
        assert!(stderr.contains(code), "{plan}: {stderr}");
    }
    let o = nfc()
        .args([
            "explain",
            "examples/flowmage-3nf.yaml",
            "--facts",
            "tests/data/proof/bad-plan.json",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("E0302"), "{stderr}");
}

/// Exit packets of a pcap grouped by flow (5-tuple as parsed), in order.
fn packets_by_flow(
    path: &Path,
) -> std::collections::HashMap<flash_rt::rss::FlowFields, Vec<Vec<u8>>> {
    let mut by = std::collections::HashMap::new();
    for p in flash_rt::trace::pcap::read_pcap(path).unwrap().iter() {
        by.entry(flash_rt::rss::FlowFields::parse(p.data))
            .or_insert_with(Vec::new)
            .push(p.data.to_vec());
    }
    by
}

/// `nfc run --workers 2` runs the placer's (proven) plan for flowmage-3nf:
/// psd and the flow counter shared-nothing, the policer shared; its output
/// equals the single-worker run flow by flow. `nfc build --emit plan` writes
/// what `--plan` reads, and the baselines run too.
#[test]
fn run_with_workers_runs_the_plan() {
    let dir = tempfile::tempdir().unwrap();
    let pcap = dir.path().join("t.pcap");
    gen_flowmage_3nf_trace(&pcap, 60000);
    let run = |extra: &[&str], out: &Path| {
        let o = nfc()
            .args([
                "run",
                "examples/flowmage-3nf.yaml",
                "--proof-packets",
                "6000",
                "--pcap",
            ])
            .arg(&pcap)
            .arg("--out")
            .arg(out)
            .args(extra)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(
            o.status.success(),
            "{extra:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        stdout
    };
    let one = dir.path().join("one.pcap");
    let two = dir.path().join("two.pcap");
    let single = run(&["--workers", "1"], &one);
    let planned = run(&["--workers", "2"], &two);
    let mode = |text: &str, nf: &str| -> String {
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with(nf))
            .unwrap_or_else(|| panic!("no line for {nf} in {text}"));
        line.split_whitespace().nth(1).unwrap().to_string()
    };
    assert_eq!(mode(&planned, "psd"), "shared-nothing", "{planned}");
    assert_eq!(mode(&planned, "counter"), "shared-nothing", "{planned}");
    assert_eq!(mode(&planned, "policer"), "shared", "{planned}");
    assert!(planned.contains("RSS on src_ip"), "{planned}");
    assert!(
        planned.contains("plan proven by differential execution"),
        "{planned}"
    );
    let shares: Vec<&str> = planned
        .lines()
        .filter(|l| l.trim_start().starts_with("worker "))
        .collect();
    assert_eq!(shares.len(), 2, "{planned}");
    assert!(single.contains("(1 worker)"), "{single}");
    // The policer drops (so the comparison covers verdicts), the same per flow.
    let a = packets_by_flow(&one);
    let b = packets_by_flow(&two);
    let total: usize = a.values().map(Vec::len).sum();
    assert!(total > 1000 && total < 60000, "{total} packets left");
    assert_eq!(a.len(), b.len());
    for (flow, pa) in &a {
        assert_eq!(Some(pa), b.get(flow), "flow {flow:?}");
    }
    // A saved plan runs the same layout; the baselines run.
    let out = dir.path().join("build");
    let o = nfc()
        .args([
            "build",
            "examples/flowmage-3nf.yaml",
            "--emit",
            "plan",
            "--proof-packets",
            "6000",
            "-o",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let plan = out.join("plan.json");
    let saved = run(
        &["--plan", plan.to_str().unwrap()],
        &dir.path().join("s.pcap"),
    );
    assert_eq!(mode(&saved, "psd"), "shared-nothing", "{saved}");
    assert_eq!(mode(&saved, "policer"), "shared", "{saved}");
    let sn = run(
        &["--workers", "2", "--sharing", "all-shared-nothing"],
        &dir.path().join("sn.pcap"),
    );
    assert_eq!(mode(&sn, "policer"), "shared-nothing", "{sn}");
    let sh = run(
        &["--workers", "2", "--sharing", "all-shared"],
        &dir.path().join("sh.pcap"),
    );
    assert_eq!(mode(&sh, "psd"), "shared", "{sh}");
}

/// `nfc predict` runs `nfc-predict` (built beside nfc by the workspace build
/// `cargo xtask test` runs) with its arguments and format, and keeps its exit
/// code: a missing model is a located error, exit 1, JSON on stderr.
#[test]
fn predict_passes_through_to_nfc_predict() {
    let d = tempfile::tempdir().unwrap();
    let csv = d.path().join("run.csv");
    std::fs::write(&csv, "input_rate,output_rate,latency,fw_cycles\n1,1,1,1\n").unwrap();
    let o = nfc()
        .args(["--format", "json", "predict", "eval", "--model"])
        .arg(d.path().join("no-model"))
        .arg("--data")
        .arg(&csv)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "stderr: {err}");
    assert!(
        err.contains("\"error\"") && err.contains("no-model"),
        "{err}"
    );
    // The predictor's own help, not nfc's.
    let o = nfc().args(["predict", "--help"]).output().unwrap();
    assert!(o.status.success());
    let help = String::from_utf8_lossy(&o.stdout);
    assert!(
        help.contains("nfc predict") && help.contains("train"),
        "{help}"
    );
}
