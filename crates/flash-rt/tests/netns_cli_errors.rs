//! CLI error paths that need no privileges: malformed and inconsistent
//! deployments give a clear message and exit code 1 from `flash-rt check`
//! and `flash-rt monitor` (before anything privileged happens), and an NF
//! host without a running monitor says so.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_flash-rt");

/// Run `flash-rt <cmd> <file with text>` and check exit code and stderr.
fn check(cmd: &str, file: &str, text: &str, code: i32, expect: &str) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(file);
    std::fs::write(&path, text).unwrap();
    let mut c = Command::new(BIN);
    c.arg(cmd).arg(&path);
    if cmd == "nf" {
        c.arg("a");
    }
    let out = c.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "stderr: {err}");
    assert!(
        err.contains(expect),
        "expected `{expect}` in stderr:\n{err}"
    );
}

const GOOD: &str = "version: 1\nmonitor:\n  socket: /nonexistent-dir/flash.sock\n  interfaces: [{name: in, ifname: lo}]\nnfs:\n  - {id: a, object: /x.so}\nlinks:\n  - {from: {iface: in}, to: {nf: a}}\n  - {from: {nf: a}, to: {iface: in}}\n";

#[test]
fn netns_cli_malformed_yaml() {
    check(
        "check",
        "d.yaml",
        "version: 1\nmonitor: [\n",
        1,
        "malformed deployment",
    );
    check(
        "monitor",
        "d.yaml",
        "version: 1\nmonitor: [\n",
        1,
        "malformed deployment",
    );
    check(
        "check",
        "d.json",
        "{\"version\": 1,",
        1,
        "malformed deployment",
    );
}

#[test]
fn netns_cli_inconsistent_deployment_lists_every_problem() {
    let bad = GOOD
        .replace("to: {nf: a}}", "to: {nf: b}}")
        .replace("{iface: in}}\n", "{iface: out}}\n");
    check("check", "d.yaml", &bad, 1, "unknown NF `b`");
    check("check", "d.yaml", &bad, 1, "unknown interface `out`");
    check(
        "check",
        "d.yaml",
        &GOOD.replace("version: 1", "version: 2"),
        1,
        "has version 2",
    );
}

#[test]
fn netns_cli_good_deployment_and_missing_object() {
    check("check", "d.yaml", GOOD, 0, "");
    check("nf", "d.yaml", GOOD, 1, "shared object /x.so not found");
}
