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
