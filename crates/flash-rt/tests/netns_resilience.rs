//! Resilience of the on-line runtime (FLASH §4: NFs are ordinary,
//! unprivileged processes; the monitor owns every shared resource, so an NF
//! can die and come back without tearing the chain down). A 3-NF zero-copy
//! chain of L2 forwarders runs between two namespaces; the test SIGKILLs an
//! NF host mid-run and checks that the monitor stays up and keeps answering,
//! that frames sent during the outage wait in the dead NF's inbox (nothing
//! leaves the chain), and that a restarted host drains them and the chain
//! forwards every new frame intact. It then kills and restarts the entry NF,
//! which owns the RX socket and the UMEM frames, to check that a restarted
//! host does not hand out frames still in flight (corrupted or duplicated
//! frames would show up at the egress), including under a burst larger
//! than the NF's frame pool (drops allowed, duplicates not). Skips loudly
//! without root.

mod netns_common;

use netns_common::*;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

const NOBODY: u32 = 65534;

fn spawn_nf(dep: &Path, id: &str) -> Proc {
    let mut cmd = Command::new(BIN);
    cmd.arg("nf").arg(dep).arg(id).uid(NOBODY).gid(NOBODY);
    let (mut p, line) = spawn_ready(cmd, id);
    assert!(
        line.contains("ready"),
        "{id} did not start: {line}{}",
        stderr_of(&mut p)
    );
    p
}

fn counter(st: &serde_json::Value, nf: usize, name: &str) -> u64 {
    st["nfs"][nf]["counters"][name]
        .as_u64()
        .unwrap_or_else(|| panic!("no counter {name}: {st:#}"))
}

fn send(tx: &OwnedFd, seqs: impl Iterator<Item = u32>) {
    for seq in seqs {
        let f = frame(seq);
        // SAFETY: sending our buffer on a bound packet socket.
        let rc = unsafe { libc::send(tx.as_raw_fd(), f.as_ptr().cast(), f.len(), 0) };
        assert_eq!(
            rc,
            f.len() as isize,
            "send: {}",
            std::io::Error::last_os_error()
        );
    }
}

/// Receive until `n` frames arrived (or a 10 s receive timeout); returns their sequence numbers.
fn recv(rx: &OwnedFd, n: usize, last_nf: usize) -> Vec<u32> {
    let (dst, src) = nf_macs(last_nf);
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
        assert_eq!(
            (&f[0..6], &f[6..12]),
            (&dst[..], &src[..]),
            "frame {seq}: MACs not rewritten by the last NF"
        );
        assert_eq!(
            &f[12..64],
            &frame(seq)[12..],
            "frame {seq}: payload corrupted"
        );
        seqs.push(seq);
    }
    seqs
}

/// Nothing is waiting on `rx` right now.
fn nothing_waiting(rx: &OwnedFd) -> bool {
    let mut buf = [0u8; 2048];
    // SAFETY: non-blocking receive into our buffer.
    let rc = unsafe {
        libc::recv(
            rx.as_raw_fd(),
            buf.as_mut_ptr().cast(),
            buf.len(),
            libc::MSG_DONTWAIT,
        )
    };
    rc < 0
}

/// Wait until `cond(stats)` holds, re-reading stats (bounded; no fixed sleeps).
fn await_stats(
    dep: &Path,
    what: &str,
    cond: impl Fn(&serde_json::Value) -> bool,
) -> serde_json::Value {
    for _ in 0..20_000 {
        let st = stats(dep);
        if cond(&st) {
            return st;
        }
        std::thread::yield_now();
    }
    panic!("timed out waiting for {what}: {:#}", stats(dep));
}

fn kill9(p: &mut Proc) -> u32 {
    let pid = p.child.id();
    // SAFETY: signalling our own child.
    assert_eq!(unsafe { libc::kill(pid as i32, libc::SIGKILL) }, 0);
    let st = p.child.wait().expect("wait killed NF");
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&st),
        Some(libc::SIGKILL)
    );
    pid
}

#[test]
fn netns_resilience_kill_and_restart_nf() {
    if !root_or_skip("netns_resilience_kill_and_restart_nf") {
        return;
    }
    const K: usize = 3;
    let dir = open_tempdir();
    let so = build_l2fwd(dir.path());
    let sock = dir.path().join("mon.sock");
    let dep: PathBuf = dir.path().join("deploy.yaml");
    std::fs::write(&dep, chain_yaml(K, true, &so, &sock, NOBODY, "vi1")).unwrap();
    let topo = Topo::new();
    quiet(&topo);
    let mut cmd = Command::new("ip");
    cmd.args(["netns", "exec", &topo.dut.name, BIN, "monitor"])
        .arg(&dep);
    let (mut monitor, line) = spawn_ready(cmd, "monitor");
    assert!(
        line.contains("monitor ready"),
        "monitor did not start: {line}{}",
        stderr_of(&mut monitor)
    );
    let mut nfs: Vec<Proc> = (0..K).map(|i| spawn_nf(&dep, &format!("nf{i}"))).collect();
    let (tx, rx) = in_netns(&topo.peer.name, || {
        (packet_socket("vi0").0, packet_socket("vo0").0)
    });

    // 1. The chain forwards.
    send(&tx, 0..100);
    let got = recv(&rx, 100, K - 1);
    assert_eq!(got, (0..100).collect::<Vec<_>>(), "before the kill");

    // 2. SIGKILL the middle NF: the monitor stays up and still serves stats.
    let dead = kill9(&mut nfs[1]);
    assert!(
        monitor.child.try_wait().unwrap().is_none(),
        "monitor died with its NF: {}",
        stderr_of(&mut monitor)
    );
    let st = stats(&dep);
    assert_eq!(
        st["nfs"][1]["pid"].as_u64(),
        Some(u64::from(dead)),
        "{st:#}"
    );

    // 3. Frames sent during the outage queue up in the dead NF's inbox; none leaves.
    let before = counter(&st, 0, "tx_link");
    send(&tx, 1000..1050);
    let st = await_stats(&dep, "nf0 to forward the outage frames", |s| {
        counter(s, 0, "tx_link") >= before + 50
    });
    assert!(
        st["nfs"][1]["inbox_depth"].as_u64().unwrap() >= 50,
        "{st:#}"
    );
    assert!(
        nothing_waiting(&rx),
        "a frame left the chain while its middle NF was dead"
    );

    // 4. Restart it: the queued frames drain, new frames flow.
    nfs[1] = spawn_nf(&dep, "nf1");
    let mut got = recv(&rx, 50, K - 1);
    got.sort_unstable();
    assert_eq!(
        got,
        (1000..1050).collect::<Vec<_>>(),
        "outage frames after the restart"
    );
    send(&tx, 2000..2200);
    let got = recv(&rx, 200, K - 1);
    assert_eq!(
        got,
        (2000..2200).collect::<Vec<_>>(),
        "after restarting the middle NF"
    );
    let st = stats(&dep);
    assert_ne!(st["nfs"][1]["pid"].as_u64(), Some(u64::from(dead)));

    // 5. Kill and restart the entry NF (RX socket and frame owner) twice;
    //    the frame pool must come back without frames still in flight.
    for round in 0..2u32 {
        kill9(&mut nfs[0]);
        nfs[0] = spawn_nf(&dep, "nf0");
        let base = 3000 + round * 1000;
        // Far more frames than the NF owns (1024), so every frame is reused.
        let mut all = vec![];
        for chunk in 0..20u32 {
            let s = base + chunk * 64;
            send(&tx, s..s + 64);
            all.extend(recv(&rx, 64, K - 1));
        }
        let want: Vec<u32> = (0..20u32)
            .flat_map(|c| base + c * 64..base + c * 64 + 64)
            .collect();
        assert_eq!(
            all.len(),
            want.len(),
            "lost frames after restarting nf0 (round {round}); stats: {:#}",
            stats(&dep)
        );
        assert_eq!(all, want, "round {round}");
    }
    // 5b. Restart nf0 once more and overload it with one burst larger than
    //     its frame pool: frames may be dropped at the ingress, but a frame
    //     must never be handed to the kernel twice (that would deliver one
    //     packet twice or overwrite another in flight).
    kill9(&mut nfs[0]);
    nfs[0] = spawn_nf(&dep, "nf0");
    send(&tx, 10_000..11_500);
    let tv = libc::timeval {
        tv_sec: 1,
        tv_usec: 0,
    };
    // SAFETY: valid timeval; ends the receive loop once the burst is through.
    unsafe {
        libc::setsockopt(
            rx.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_RCVTIMEO,
            (&tv as *const libc::timeval).cast(),
            16,
        )
    };
    let mut burst = recv(&rx, 1500, K - 1);
    let n = burst.len();
    burst.sort_unstable();
    burst.dedup();
    assert_eq!(
        burst.len(),
        n,
        "frames delivered twice after restarting nf0"
    );
    assert!(n > 0, "no burst frame delivered");
    assert!(
        monitor.child.try_wait().unwrap().is_none(),
        "monitor exited"
    );

    // 6. Clean shutdown: the monitor detaches XDP and removes its socket.
    drop(nfs);
    let status = monitor.stop();
    assert!(
        status.success(),
        "monitor exit: {status:?} {}",
        stderr_of(&mut monitor)
    );
    assert!(!topo.dut_link("vi1").contains("xdp"), "XDP left attached");
    assert!(!sock.exists(), "socket file left behind");
    let names = (topo.dut.name.clone(), topo.peer.name.clone());
    drop(topo);
    assert!(
        !netns_exists(&names.0) && !netns_exists(&names.1),
        "namespaces leaked"
    );
}
