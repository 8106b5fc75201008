//! `nfc analyze` on NFs kept outside nfc's tree and under a budget: CLI runs
//! snapshotted with stdout, stderr and exit code (insta-cmd).

use insta_cmd::{assert_cmd_snapshot, get_cargo_bin};
use std::process::Command;

fn analyze() -> Command {
    let mut c = Command::new(get_cargo_bin("nfc"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c.args(["analyze", "--no-cache"]);
    c
}

/// A user's nfc-C NF outside nfs/ finds nf.h in nfc's own include directory.
#[test]
fn bring_your_own_nf_finds_nf_h() {
    assert_cmd_snapshot!(analyze().arg("crates/analyzer/tests/byo/accessor_table.c"));
}

/// State that steers the verdict but no packet field keys: not splittable,
/// with the object and the line.
#[test]
fn split_hazard_is_reported() {
    assert_cmd_snapshot!(analyze().arg("crates/analyzer/tests/byo/global_bucket.c"));
}

/// Over its time budget the analysis answers "unknown", with a diagnostic.
#[test]
fn over_budget_is_unknown_with_a_diagnostic() {
    assert_cmd_snapshot!(analyze()
        .args(["--analysis-time", "0.000000001"])
        .arg("crates/analyzer/tests/byo/accessor_table.c"));
}

/// A budget that is no number of seconds is a located error, exit 1.
#[test]
fn bad_budget_is_an_error() {
    assert_cmd_snapshot!(analyze()
        .arg("--analysis-time=-1")
        .arg("crates/analyzer/tests/byo/accessor_table.c"));
}
