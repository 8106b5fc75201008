//! The monitor's attach deadline, with real namespaces, veths and XDP: a
//! `flash-rt monitor` whose NFs never connect (none started, or one of two)
//! exits 1 after `--attach-timeout-ms` with a message naming exactly the NFs
//! that never attached, their uid and the socket, and leaves no XDP program,
//! socket file or namespace behind.

mod netns_common;

use netns_common::*;
use std::path::Path;
use std::process::Command;

const NOBODY: u32 = 65534;

/// What the monitor prints for NFs `pending` (id, uid) at `timeout_ms`.
fn never_attached(pending: &[(&str, u32)], timeout_ms: u64, sock: &Path) -> String {
    let list: Vec<String> = pending
        .iter()
        .map(|(id, uid)| format!("`{id}` (uid {uid})"))
        .collect();
    format!(
        "flash-rt: error: {} {} never attached within {timeout_ms} ms: is each one's host running (`flash-rt nf <deployment> <id>`), as that uid, and can it reach the monitor socket {}?",
        if pending.len() == 1 { "NF" } else { "NFs" },
        list.join(", "),
        sock.display()
    )
}

/// Start a monitor for a `k`-NF chain with `timeout_ms`, start the NFs in
/// `started` once it is ready, wait for it to exit, and check its exit code,
/// last stderr line and that it cleaned up.
fn check_deadline(k: usize, started: &[usize], timeout_ms: u64) {
    let dir = open_tempdir();
    let so = build_l2fwd(dir.path());
    let sock = dir.path().join("mon.sock");
    let dep = dir.path().join("deploy.yaml");
    std::fs::write(&dep, chain_yaml(k, true, &so, &sock, NOBODY, "vi1")).unwrap();
    let topo = Topo::new();
    let mut cmd = Command::new("ip");
    cmd.args(["netns", "exec", &topo.dut.name, BIN, "monitor"])
        .arg(&dep)
        .arg(format!("--attach-timeout-ms={timeout_ms}"));
    let (mut monitor, line) = spawn_ready(cmd, "monitor");
    assert!(
        line.contains("monitor ready"),
        "monitor did not start: {line}{}",
        stderr_of(&mut monitor)
    );
    assert!(
        topo.dut_link("vi1").contains("xdp"),
        "no XDP on vi1 while serving"
    );
    let nfs: Vec<Proc> = started
        .iter()
        .map(|i| spawn_nf_host(&dep, &format!("nf{i}")))
        .collect();
    let status = monitor.child.wait().expect("wait monitor");
    let err = stderr_of(&mut monitor);
    assert_eq!(status.code(), Some(1), "monitor stderr:\n{err}");
    let names: Vec<String> = (0..k)
        .filter(|i| !started.contains(i))
        .map(|i| format!("nf{i}"))
        .collect();
    let pending: Vec<(&str, u32)> = names.iter().map(|n| (n.as_str(), NOBODY)).collect();
    assert_eq!(
        err.lines().last().unwrap_or(""),
        never_attached(&pending, timeout_ms, &sock),
        "monitor stderr:\n{err}"
    );
    assert!(
        err.contains("flash-rt monitor: stopped, XDP detached"),
        "{err}"
    );
    for i in started {
        assert!(
            err.contains(&format!("attached NF `nf{i}`")),
            "nf{i} never attached:\n{err}"
        );
    }
    assert!(
        !topo.dut_link("vi1").contains("xdp") && !topo.dut_link("vo1").contains("xdp"),
        "XDP left attached:\n{}{}",
        topo.dut_link("vi1"),
        topo.dut_link("vo1")
    );
    assert!(!sock.exists(), "socket file left behind");
    drop(nfs);
    let ns = (topo.dut.name.clone(), topo.peer.name.clone());
    drop(topo);
    assert!(
        !netns_exists(&ns.0) && !netns_exists(&ns.1),
        "namespaces leaked"
    );
}

#[test]
fn netns_attach_deadline_names_every_nf_never_started() {
    if root_or_skip("netns_attach_deadline_names_every_nf_never_started") {
        check_deadline(3, &[], 200);
    }
}

#[test]
fn netns_attach_deadline_names_only_the_missing_nf() {
    // nf0 attaches well inside the deadline; nf1 is never started.
    if root_or_skip("netns_attach_deadline_names_only_the_missing_nf") {
        check_deadline(2, &[0], 5000);
    }
}
