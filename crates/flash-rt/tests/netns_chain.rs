//! End-to-end tests of the on-line runtime with real packets: each test
//! builds its own namespaces and veth pairs, starts `flash-rt monitor` (root,
//! inside the DUT namespace) and one `flash-rt nf` host per NF as uid 65534,
//! sends frames with a raw AF_PACKET socket in the peer namespace and checks
//! that every frame comes back out of the chain, in order, with the MACs
//! the last NF wrote, and that each NF's counters saw every packet. Error
//! tests check that a missing interface and a wrong uid fail clearly and
//! leave no XDP program or namespace behind.

mod netns_common;

use netns_common::*;
use std::process::Command;

const NOBODY: u32 = 65534;

struct Running {
    nfs: Vec<Proc>,
    monitor: Proc,
    dep: std::path::PathBuf,
    topo: Topo,
    _dir: tempfile::TempDir,
}

/// NF keys of the default test chains: interrupt mode only.
const NEVER_BUSY: &str = "polling: {never_busy: true}";

fn start_chain(k: usize, zero_copy: bool, nf_keys: &str) -> Running {
    let dir = open_tempdir();
    let so = build_l2fwd(dir.path());
    let sock = dir.path().join("mon.sock");
    let dep = dir.path().join("deploy.yaml");
    std::fs::write(
        &dep,
        chain_yaml_with(k, zero_copy, &so, &sock, NOBODY, "vi1", nf_keys),
    )
    .unwrap();
    let topo = Topo::new();
    let monitor = spawn_monitor(&topo.dut.name, &dep);
    assert!(
        topo.dut_link("vi1").contains("xdp"),
        "no XDP program on vi1:\n{}",
        topo.dut_link("vi1")
    );
    let nfs = (0..k)
        .map(|i| spawn_nf_host(&dep, &format!("nf{i}")))
        .collect();
    Running {
        nfs,
        monitor,
        dep,
        topo,
        _dir: dir,
    }
}

fn stats(dep: &std::path::Path) -> serde_json::Value {
    let out = Command::new(BIN).arg("stats").arg(dep).output().unwrap();
    assert!(
        out.status.success(),
        "stats: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Run a chain of `k` NFs and check every frame end to end; returns the
/// monitor's stats taken after the exchange.
fn check_chain(k: usize, zero_copy: bool, n: u32) -> serde_json::Value {
    check_chain_with(k, zero_copy, n, NEVER_BUSY)
}

fn check_chain_with(k: usize, zero_copy: bool, n: u32, nf_keys: &str) -> serde_json::Value {
    let r = start_chain(k, zero_copy, nf_keys);
    let got = in_netns(&r.topo.peer.name.clone(), move || {
        let (tx, _) = packet_socket("vi0");
        let (rx, _) = packet_socket("vo0");
        exchange(&tx, &rx, n, 32)
    });
    let st = stats(&r.dep);
    assert_eq!(got.len() as u32, n, "lost packets; stats:\n{st:#}");
    let (dst, src) = nf_macs(k - 1);
    for (i, f) in got.iter().enumerate() {
        let want = frame(i as u32);
        assert_eq!(&f[0..6], &dst, "frame {i}: dst MAC not rewritten");
        assert_eq!(&f[6..12], &src, "frame {i}: src MAC not rewritten");
        assert_eq!(
            &f[12..f.len().min(64)],
            &want[12..],
            "frame {i}: out of order or corrupted"
        );
    }
    for i in 0..k {
        let c = &st["nfs"][i]["counters"];
        let rx = c["rx_iface"].as_u64().unwrap() + c["rx_link"].as_u64().unwrap();
        let tx = c["tx_iface"].as_u64().unwrap() + c["tx_link"].as_u64().unwrap();
        assert!(
            rx >= u64::from(n) && tx >= u64::from(n),
            "nf{i} counters: {c:#}"
        );
        // The hosts run under their seccomp sandbox: it refused nothing.
        assert_eq!(
            c["syscalls_refused"].as_u64(),
            Some(0),
            "nf{i}: sandbox refusals: {c:#}"
        );
        if !zero_copy && i > 0 {
            assert!(
                c["copies"].as_u64().unwrap() >= u64::from(n),
                "nf{i} made no copies: {c:#}"
            );
        }
        if zero_copy {
            assert_eq!(
                c["copies"].as_u64().unwrap(),
                0,
                "zero-copy NF copied: {c:#}"
            );
        }
    }
    let mut r = r;
    // Every host stops cleanly on SIGTERM, its sandbox having refused
    // nothing on the way out either.
    for (i, h) in r.nfs.iter_mut().enumerate() {
        let status = h.stop();
        let err = stderr_of(h);
        assert!(status.success(), "nf{i} exit {status:?}: {err}");
        assert!(!err.contains("refused system call"), "nf{i}: {err}");
    }
    let status = r.monitor.stop();
    assert!(
        status.success(),
        "monitor exit: {status:?} {}",
        stderr_of(&mut r.monitor)
    );
    assert!(
        !r.topo.dut_link("vi1").contains("xdp"),
        "XDP left attached after monitor exit"
    );
    st
}

#[test]
fn netns_chain_1() {
    if root_or_skip("netns_chain_1") {
        let _ = check_chain(1, true, 400);
    }
}

#[test]
fn netns_chain_2_zero_copy() {
    if root_or_skip("netns_chain_2_zero_copy") {
        let _ = check_chain(2, true, 400);
    }
}

#[test]
fn netns_chain_4_zero_copy() {
    if root_or_skip("netns_chain_4_zero_copy") {
        let _ = check_chain(4, true, 400);
    }
}

#[test]
fn netns_chain_2_single_copy() {
    if root_or_skip("netns_chain_2_single_copy") {
        let _ = check_chain(2, false, 400);
    }
}

#[test]
fn netns_chain_4_single_copy() {
    if root_or_skip("netns_chain_4_single_copy") {
        let _ = check_chain(4, false, 400);
    }
}

#[test]
fn netns_chain_8_zero_copy() {
    if root_or_skip("netns_chain_8_zero_copy") {
        let _ = check_chain(8, true, 200);
    }
}

#[test]
fn netns_chain_8_single_copy() {
    if root_or_skip("netns_chain_8_single_copy") {
        let _ = check_chain(8, false, 200);
    }
}

#[test]
fn netns_missing_interface_fails_cleanly() {
    if !root_or_skip("netns_missing_interface_fails_cleanly") {
        return;
    }
    let dir = open_tempdir();
    let so = build_l2fwd(dir.path());
    let sock = dir.path().join("mon.sock");
    let dep = dir.path().join("deploy.yaml");
    std::fs::write(&dep, chain_yaml(1, true, &so, &sock, NOBODY, "nosuch0")).unwrap();
    let topo = Topo::new();
    let out = Command::new("ip")
        .args(["netns", "exec", &topo.dut.name, BIN, "monitor"])
        .arg(&dep)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "stderr: {err}");
    assert!(
        err.contains("interface `nosuch0` (deployment name `in`) does not exist"),
        "stderr: {err}"
    );
    assert!(!topo.dut_link("vo1").contains("xdp") && !topo.dut_link("vi1").contains("xdp"));
    assert!(!sock.exists(), "socket file left behind");
    let names = (topo.dut.name.clone(), topo.peer.name.clone());
    drop(topo);
    assert!(
        !netns_exists(&names.0) && !netns_exists(&names.1),
        "namespaces leaked"
    );
}

#[test]
fn netns_wrong_uid_is_refused() {
    if !root_or_skip("netns_wrong_uid_is_refused") {
        return;
    }
    let dir = open_tempdir();
    let so = build_l2fwd(dir.path());
    let sock = dir.path().join("mon.sock");
    let dep = dir.path().join("deploy.yaml");
    // The deployment says uid 4242; the host runs as nobody.
    std::fs::write(&dep, chain_yaml(1, true, &so, &sock, 4242, "vi1")).unwrap();
    let topo = Topo::new();
    let mut cmd = Command::new("ip");
    cmd.args(["netns", "exec", &topo.dut.name, BIN, "monitor"])
        .arg(&dep);
    let (mut monitor, line) = spawn_ready(cmd, "monitor");
    assert!(line.contains("ready"), "{line}{}", stderr_of(&mut monitor));
    use std::os::unix::process::CommandExt;
    let out = Command::new(BIN)
        .arg("nf")
        .arg(&dep)
        .arg("nf0")
        .uid(NOBODY)
        .gid(NOBODY)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "stderr: {err}");
    assert!(
        err.contains("must run as uid 4242, peer runs as uid 65534"),
        "stderr: {err}"
    );
    assert!(monitor.stop().success());
    assert!(!sock.exists(), "socket file left behind");
}

/// Four NFs pinned to one CPU with smart polling that goes busy at once:
/// each host sees it shares its CPU, so in busy mode it sleeps on idle
/// iterations (SCHED_BATCH) instead of spinning, and the first NF, which
/// reads the interface, takes its receive-moderation timer sleeps. Every
/// frame must still arrive in order.
#[test]
fn netns_chain_4_sharing_one_cpu() {
    if !root_or_skip("netns_chain_4_sharing_one_cpu") {
        return;
    }
    let keys = "cpus: [0], polling: {busy_threshold_pps: 1, window_us: 100, busy_timeout_us: 200000, rx_coalesce_us: 50}";
    let st = check_chain_with(4, true, 400, keys);
    for i in 0..4 {
        let c = &st["nfs"][i]["counters"];
        assert!(
            c["to_busy"].as_u64().unwrap() > 0,
            "nf{i} never busy: {c:#}"
        );
    }
    let c0 = &st["nfs"][0]["counters"];
    assert!(
        c0["rx_moderated_sleeps"].as_u64().unwrap() > 0,
        "nf0 never slept on its receive-moderation timer: {c0:#}"
    );
}

/// Two NFs with smart polling that goes busy at once and no pinning: the
/// hosts spin (sched_yield on idle iterations), watch their CPU for
/// contention and may back off under SCHED_BATCH — every system call of
/// that path must pass the hosts' seccomp sandbox (`check_chain_with`
/// asserts it refused none) and every frame arrive in order.
#[test]
fn netns_chain_2_busy_polling_under_the_sandbox() {
    if root_or_skip("netns_chain_2_busy_polling_under_the_sandbox") {
        let keys = "polling: {busy_threshold_pps: 1, window_us: 100, busy_timeout_us: 200000}";
        let st = check_chain_with(2, true, 2000, keys);
        let c = &st["nfs"][0]["counters"];
        assert!(c["to_busy"].as_u64().unwrap() > 0, "nf0 never busy: {c:#}");
    }
}
