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
