//! A flash deployment run the way docs/targets/flash.md tells an operator
//! to run it, with real namespaces, veths and XDP (root; skips loudly
//! otherwise):
//!
//! - restart: `nfc run dep/` starts the monitor and one NF host per NF as
//!   uid 65534; the test SIGKILLs the middle host (it cannot reap it: the
//!   host is `nfc run`'s child, and the test never waits for it), restarts
//!   the NF with the documented `nfc nf-host dep/deployment.json nf1` as uid
//!   65534, and checks that `nfc run` reaped the dead host (no zombie), that
//!   sequence-numbered frames sent during the outage and after come out
//!   exactly once, and that stopping `nfc run` also ends the restarted host
//!   (not its child) with nothing left behind;
//! - monitor death: the monitor (`nfc run`) is SIGKILLed while frames flow;
//!   every NF host, its own children and a restarted one alike, must exit by
//!   itself, and no host process, XDP program, AF_XDP socket, pinned BPF
//!   object or namespace may be left; a new `nfc run` then serves the same
//!   deployment again.

#[path = "../crates/flash-rt/tests/netns_common/mod.rs"]
mod netns_common;

use netns_common::*;
use std::io::{BufRead, BufReader};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

const NFC: &str = env!("CARGO_BIN_EXE_nfc");
const NOBODY: u32 = 65534;
const K: usize = 3;

/// A deployment directory (0755, readable by uid 65534) holding a
/// `K`-NF zero-copy chain of L2 forwarders as deployment.json, named
/// `name` with the UMEM group `name` (so its shared memory is told apart
/// from other tests').
fn deployment_dir(name: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = open_tempdir();
    let so = build_l2fwd(dir.path());
    let sock = dir.path().join("mon.sock");
    let yaml = dir.path().join("chain.yaml");
    let text = chain_yaml(K, true, &so, &sock, NOBODY, "vi1")
        .replacen(&format!("name: chain{K}\n"), &format!("name: {name}\n"), 1)
        .replacen("- {name: chain, nfs", &format!("- {{name: {name}, nfs"), 1);
    assert!(text.contains(&format!("name: {name}, nfs")), "{text}");
    std::fs::write(&yaml, text).unwrap();
    let dep = flash_rt::deploy::Deployment::load(&yaml).expect("test deployment loads");
    let file = dir.path().join("deployment.json");
    std::fs::write(&file, dep.to_json()).unwrap();
    (dir, file, sock)
}

/// `nfc run <dir>` in namespace `ns`, its stderr lines forwarded to a
/// channel (and kept).
struct NfcRun {
    child: Child,
    lines: Receiver<String>,
    log: Vec<String>,
}

impl NfcRun {
    fn start(ns: &str, dir: &Path) -> NfcRun {
        let mut child = Command::new("ip")
            .args(["netns", "exec", ns, NFC, "run"])
            .arg(dir)
            .args(["--duration", "300"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn nfc run");
        let stderr = child.stderr.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let mut run = NfcRun {
            child,
            lines,
            log: vec![],
        };
        let mut pending: Vec<String> = (0..K).map(|i| format!("attached NF `nf{i}`")).collect();
        while !pending.is_empty() {
            let line = run.wait_for("attached NF `");
            pending.retain(|p| !line.contains(p.as_str()));
        }
        run
    }

    /// Wait (60 s at most) for a stderr line containing `what`; returns it.
    fn wait_for(&mut self, what: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.log.push(line.clone());
                    if line.contains(what) {
                        return line;
                    }
                }
                Err(_) => {
                    let _ = self.child.kill();
                    panic!("no `{what}` from nfc run; log:\n{}", self.log.join("\n"));
                }
            }
        }
    }

    /// The pid nfc run started NF `nf`'s host as.
    fn host_pid(&self, nf: &str) -> i32 {
        let tag = format!("started NF `{nf}` (pid ");
        let line = self
            .log
            .iter()
            .find(|l| l.contains(&tag))
            .unwrap_or_else(|| panic!("no `{tag}` in\n{}", self.log.join("\n")));
        let rest = &line[line.find(&tag).unwrap() + tag.len()..];
        rest.trim_end_matches(')').parse().expect("pid")
    }
}

impl Drop for NfcRun {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// `nfc nf-host <deployment.json> <nf>` as uid 65534, as the docs say to
/// restart an NF; waits until it attached.
fn restart_host(file: &Path, nf: &str) -> Proc {
    let mut cmd = Command::new(NFC);
    cmd.arg("nf-host").arg(file).arg(nf).uid(NOBODY).gid(NOBODY);
    let (mut p, line) = spawn_ready(cmd, nf);
    assert!(
        line.contains("attached"),
        "restarted {nf} did not attach: {line}{}",
        stderr_of(&mut p)
    );
    p
}

fn send(tx: &OwnedFd, seqs: impl Iterator<Item = u32>) {
    for seq in seqs {
        let f = frame(seq);
        // SAFETY: sending our buffer on a bound packet socket.
        let rc = unsafe { libc::send(tx.as_raw_fd(), f.as_ptr().cast(), f.len(), 0) };
        assert_eq!(rc, f.len() as isize, "send");
    }
}

/// Receive until `n` frames arrived or the receive timeout; their sequence
/// numbers, each checked intact and rewritten by the last NF.
fn recv(rx: &OwnedFd, n: usize) -> Vec<u32> {
    let (dst, src) = nf_macs(K - 1);
    let mut buf = vec![0u8; 2048];
    let mut seqs = vec![];
    while seqs.len() < n {
        // SAFETY: receiving into our buffer.
        let rc = unsafe { libc::recv(rx.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len(), 0) };
        if rc < 0 {
            break;
        }
        let f = &buf[..rc as usize];
        let seq = u32::from_be_bytes(f[14..18].try_into().unwrap());
        assert_eq!((&f[0..6], &f[6..12]), (&dst[..], &src[..]), "frame {seq}");
        assert_eq!(&f[12..64], &frame(seq)[12..], "frame {seq} corrupted");
        seqs.push(seq);
    }
    seqs
}

/// Whether process `pid` exists at all (a zombie counts).
fn exists(pid: i32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// Processes whose command line mentions `nf-host` and `file`.
fn hosts_of(file: &Path) -> Vec<String> {
    let needle = file.display().to_string();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.contains("nf-host") && c.contains(&needle))
        .collect()
}

/// Wait (10 s at most) for `cond`.
fn eventually(what: &str, cond: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !cond() {
        assert!(Instant::now() < deadline, "timed out: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Wait (10 s at most) for our child `p` to exit; its status.
fn exit_of(p: &mut Proc) -> std::process::ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(s) = p.child.try_wait().unwrap() {
            return s;
        }
        assert!(
            Instant::now() < deadline,
            "{} still running after the monitor went away",
            p.what
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Processes holding a flash-rt shared-memory fd (UMEM or fabric memfd)
/// of deployment `name` (group `name`): only the monitor and the hosts
/// ever do.
fn memfd_holders(name: &str) -> Vec<String> {
    let fabric = format!("memfd:flash-rt-fabric-{name}");
    let umem = format!("memfd:flash-rt-umem-{name}");
    let mut out = vec![];
    for p in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(fds) = std::fs::read_dir(p.path().join("fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            if let Ok(t) = std::fs::read_link(fd.path()) {
                let t = t.display().to_string();
                if t.contains(&fabric) || t.contains(&umem) {
                    out.push(format!("{}: {t}", p.path().display()));
                }
            }
        }
    }
    out
}

fn bpffs() -> Vec<String> {
    std::fs::read_dir("/sys/fs/bpf")
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn flash_restart_a_killed_nf_host_as_documented() {
    if !root_or_skip("flash_restart_a_killed_nf_host_as_documented") {
        return;
    }
    let (dir, file, sock) = deployment_dir(&format!("oprestart{}", tag()));
    let topo = Topo::new();
    quiet(&topo);
    let mut run = NfcRun::start(&topo.dut.name, dir.path());
    let (tx, rx) = in_netns(&topo.peer.name, || {
        (packet_socket("vi0").0, packet_socket("vo0").0)
    });
    send(&tx, 0..100);
    assert_eq!(
        recv(&rx, 100),
        (0..100).collect::<Vec<_>>(),
        "before the kill"
    );

    // SIGKILL the middle host. It is nfc run's child: only nfc run can reap it.
    let dead = run.host_pid("nf1");
    // SAFETY: signalling a process by pid (nfc run's child, alive).
    assert_eq!(unsafe { libc::kill(dead, libc::SIGKILL) }, 0);
    run.wait_for(&format!("NF `nf1` (pid {dead}) ended (signal 9; reaped)"));
    assert!(!exists(dead), "the killed host is still a zombie");

    // Frames sent during the outage wait in nf1's inbox.
    send(&tx, 1000..1050);
    std::thread::sleep(Duration::from_millis(200));

    // Restart it as the docs say, as its user.
    let mut restarted = restart_host(&file, "nf1");
    run.wait_for("attached NF `nf1`");
    // A second host for the running NF is refused: the NF named once, the
    // cause as the hint.
    let second = Command::new(NFC)
        .arg("nf-host")
        .arg(&file)
        .arg("nf1")
        .uid(NOBODY)
        .gid(NOBODY)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(1), "{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(
        lines.first().copied(),
        Some(
            format!(
                "error[E0607]: NF `nf1`: monitor refused the request: already attached by pid {}, which is still running; stop it first",
                restarted.child.id()
            )
            .as_str()
        ),
        "{err}"
    );
    assert!(
        err.contains("= hint: one host per NF: stop the running host first"),
        "{err}"
    );
    assert_eq!(err.matches("`nf1`").count(), 1, "{err}");
    let mut got = recv(&rx, 50);
    got.sort_unstable();
    assert_eq!(got, (1000..1050).collect::<Vec<_>>(), "outage frames");
    // Chunks of 100: the receiving packet socket's buffer holds ~250.
    for s in (2000..2300).step_by(100) {
        send(&tx, s..s + 100);
        assert_eq!(
            recv(&rx, 100),
            (s..s + 100).collect::<Vec<_>>(),
            "after the restart (in order, no duplicate)"
        );
    }
    set_recv_timeout(&rx, 1);
    assert!(recv(&rx, 1).is_empty(), "a frame came out twice");

    // Stopping nfc run ends everything, the restarted host (not its child) too.
    // SAFETY: signalling our child (ip netns exec execs nfc in place).
    unsafe { libc::kill(run.child.id() as i32, libc::SIGTERM) };
    let status = run.child.wait().unwrap();
    while let Ok(l) = run.lines.recv_timeout(Duration::from_secs(5)) {
        run.log.push(l);
    }
    assert!(
        status.success(),
        "nfc run: {status}\n{}",
        run.log.join("\n")
    );
    let log = run.log.join("\n");
    assert!(
        !log.contains("flash-rt"),
        "nfc run mentions flash-rt:\n{log}"
    );
    let st = exit_of(&mut restarted);
    let err = stderr_of(&mut restarted);
    assert!(st.success(), "restarted host: {st} {err}");
    assert!(err.contains("the monitor went away"), "{err}");
    assert!(hosts_of(&file).is_empty(), "{:?}", hosts_of(&file));
    assert!(!topo.dut_link("vi1").contains("xdp"), "XDP left attached");
    assert!(!sock.exists(), "socket file left behind");
}

#[test]
fn flash_monitor_death_under_traffic_leaves_nothing() {
    if !root_or_skip("flash_monitor_death_under_traffic_leaves_nothing") {
        return;
    }
    let bpf_before = bpffs();
    let dep_name = format!("opdeath{}", tag());
    let (dir, file, _sock) = deployment_dir(&dep_name);
    let topo = Topo::new();
    quiet(&topo);
    let names = (topo.dut.name.clone(), topo.peer.name.clone());
    let mut run = NfcRun::start(&topo.dut.name, dir.path());
    // One host that is not nfc run's child: kill nf2's and restart it.
    let first = run.host_pid("nf2");
    // SAFETY: signalling a process by pid.
    assert_eq!(unsafe { libc::kill(first, libc::SIGKILL) }, 0);
    run.wait_for(&format!("NF `nf2` (pid {first}) ended"));
    let mut restarted = restart_host(&file, "nf2");
    run.wait_for("attached NF `nf2`");
    assert!(
        !memfd_holders(&dep_name).is_empty(),
        "no process holds the chain's shared memory while it runs?"
    );

    // Traffic (bounded: 2 s or 2M frames), monitor SIGKILLed in the middle.
    let (tx, rx) = in_netns(&names.1, || {
        (packet_socket("vi0").0, packet_socket("vo0").0)
    });
    let sender = std::thread::spawn(move || {
        let t0 = Instant::now();
        let mut seq = 0u32;
        while t0.elapsed() < Duration::from_secs(2) && seq < 2_000_000 {
            let f = frame(seq);
            // SAFETY: sending our buffer on a bound packet socket.
            unsafe { libc::send(tx.as_raw_fd(), f.as_ptr().cast(), f.len(), 0) };
            seq += 1;
        }
        seq
    });
    set_recv_timeout(&rx, 2);
    assert!(!recv(&rx, 200).is_empty(), "no traffic through the chain");
    // SAFETY: signalling our child (nfc run, execed in place by ip netns exec).
    assert_eq!(
        unsafe { libc::kill(run.child.id() as i32, libc::SIGKILL) },
        0
    );
    let _ = run.child.wait();
    let sent = sender.join().unwrap();
    assert!(sent > 0);

    // Every host exits by itself: nfc run's children and the restarted one.
    let st = exit_of(&mut restarted);
    let err = stderr_of(&mut restarted);
    assert!(st.success(), "restarted host: {st} {err}");
    assert!(err.contains("the monitor went away"), "{err}");
    eventually("every NF host to exit", || hosts_of(&file).is_empty());
    eventually("the XDP program to be detached", || {
        !topo.dut_link("vi1").contains("xdp") && !topo.dut_link("vo1").contains("xdp")
    });
    // The AF_XDP sockets, UMEMs and fabric were held only by the monitor
    // and the hosts: no process holds any of them now.
    eventually("the chain's shared memory to be released", || {
        memfd_holders(&dep_name).is_empty()
    });
    assert_eq!(bpffs(), bpf_before, "pinned BPF objects left behind");

    // The stale socket file does not stop a new run of the same deployment.
    let mut again = NfcRun::start(&names.0, dir.path());
    // SAFETY: signalling our child.
    unsafe { libc::kill(again.child.id() as i32, libc::SIGTERM) };
    assert!(again.child.wait().unwrap().success());
    drop(again);
    drop(topo);
    assert!(
        !netns_exists(&names.0) && !netns_exists(&names.1),
        "namespaces leaked"
    );
}
