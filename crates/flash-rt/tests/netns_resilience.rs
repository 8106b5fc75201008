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
use std::path::{Path, PathBuf};

const NOBODY: u32 = 65534;

fn counter(st: &serde_json::Value, nf: usize, name: &str) -> u64 {
    st["nfs"][nf]["counters"][name]
        .as_u64()
        .unwrap_or_else(|| panic!("no counter {name}: {st:#}"))
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

/// A running chain of `k` NFs with the peer's send and receive sockets.
struct Chain {
    topo: Topo,
    monitor: Proc,
    nfs: Vec<Proc>,
    tx: OwnedFd,
    rx: OwnedFd,
}

impl Chain {
    /// Namespaces (IPv6 off), the monitor of `dep` and its `k` NF hosts.
    fn start(dep: &Path, k: usize) -> Chain {
        let topo = Topo::new();
        quiet(&topo);
        let monitor = spawn_monitor(&topo.dut.name, dep);
        let nfs = (0..k)
            .map(|i| spawn_nf_host(dep, &format!("nf{i}")))
            .collect();
        let (tx, rx) = in_netns(&topo.peer.name, || {
            (packet_socket("vi0").0, packet_socket("vo0").0)
        });
        Chain {
            topo,
            monitor,
            nfs,
            tx,
            rx,
        }
    }
}

/// The deployment of a chain of `k` L2fwd NFs (as uid 65534) in `dir`:
/// (monitor socket, deployment file).
fn l2fwd_chain(dir: &Path, k: usize) -> (PathBuf, PathBuf) {
    let so = build_l2fwd(dir);
    let sock = dir.join("mon.sock");
    let dep = dir.join("deploy.yaml");
    std::fs::write(&dep, chain_yaml(k, true, &so, &sock, NOBODY, "vi1")).unwrap();
    (sock, dep)
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
    let (sock, dep) = l2fwd_chain(dir.path(), K);
    let Chain {
        topo,
        mut monitor,
        mut nfs,
        tx,
        rx,
    } = Chain::start(&dep, K);

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
    nfs[1] = spawn_nf_host(&dep, "nf1");
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
        nfs[0] = spawn_nf_host(&dep, "nf0");
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
    nfs[0] = spawn_nf_host(&dep, "nf0");
    send(&tx, 10_000..11_500);
    // Ends the receive loop once the burst is through.
    set_recv_timeout(&rx, 1);
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

/// Every NF's free frames (pool + fill ring) are back to its full
/// partition once the chain is quiet: nothing was lost.
fn all_frames_free(st: &serde_json::Value, frames: u64) -> bool {
    st["nfs"]
        .as_array()
        .is_some_and(|a| a.iter().all(|n| n["free_frames"].as_u64() == Some(frames)))
}

/// SIGKILL the middle NF while traffic flows (so it dies holding frames
/// and, sometimes, mid-enqueue into its downstream inbox or a free ring),
/// restart it: the monitor repairs the ring reservation it left (the
/// upstream NF is not frozen), the new host returns the frames its
/// predecessor held, traffic resumes, and once quiet every NF's frame
/// partition is complete again. Then kill the entry NF: the monitor clears
/// its XSKMAP slot, so frames sent while it is down go to the kernel stack
/// instead of waiting in its orphaned socket (none of them comes out after
/// the restart).
#[test]
fn netns_resilience_kill_under_traffic_loses_no_frames() {
    if !root_or_skip("netns_resilience_kill_under_traffic_loses_no_frames") {
        return;
    }
    const K: usize = 3;
    const FRAMES: u64 = 1024; // per NF, as chain_yaml writes it
    let dir = open_tempdir();
    let so = build_l2fwd(dir.path());
    let sock = dir.path().join("mon.sock");
    let dep: PathBuf = dir.path().join("deploy.yaml");
    // Inboxes smaller than nf0's frame pool, so a stopped nf2 backs frames
    // up into nf1.
    let yaml = chain_yaml(K, true, &so, &sock, NOBODY, "vi1").replacen(
        "  xdp_mode: auto\n",
        "  xdp_mode: auto\n  inbox_size: 256\n",
        1,
    );
    assert!(yaml.contains("inbox_size: 256"));
    std::fs::write(&dep, yaml).unwrap();
    let Chain {
        topo: _topo, // keeps the namespaces alive
        mut monitor,
        mut nfs,
        tx,
        rx,
    } = Chain::start(&dep, K);
    // Bounds the drain loops below.
    set_recv_timeout(&rx, 1);

    // 1. Traffic flows; kill nf1 in the middle of it, several rounds.
    for round in 0..3u32 {
        let base = round * 100_000;
        let before = counter(&stats(&dep), 1, "rx_link");
        let sender = {
            let tx = tx.try_clone().unwrap();
            std::thread::spawn(move || send(&tx, base..base + 20_000))
        };
        // Kill once frames are demonstrably in flight through nf1. In round
        // 0 nf2 is stopped first, so nf1 surely dies holding frames it
        // could not hand on (its downstream inbox is full).
        let nf2 = nfs[2].child.id() as i32;
        if round == 0 {
            // SAFETY: signalling our own child.
            unsafe { libc::kill(nf2, libc::SIGSTOP) };
            await_stats(&dep, "nf1 to be throttled by the stopped nf2", |s| {
                s["nfs"][1]["mode"] == "throttle"
            });
        } else {
            await_stats(&dep, "traffic through nf1", |s| {
                counter(s, 1, "rx_link") > before + 200
            });
        }
        kill9(&mut nfs[1]);
        if round == 0 {
            // SAFETY: as above.
            unsafe { libc::kill(nf2, libc::SIGCONT) };
        }
        sender.join().unwrap();
        await_stats(&dep, "the monitor to see nf1 die", |s| {
            s["nfs"][1]["attached"] == serde_json::json!(false)
        });
        nfs[1] = spawn_nf_host(&dep, "nf1");
        // Drain whatever made it (frames may have died with nf1).
        let mut seen = vec![];
        while let Some(s) = recv_one(&rx) {
            seen.push(s);
        }
        let n = seen.len();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), n, "round {round}: a frame came out twice");
        // 2. Traffic resumes: every new frame arrives intact, in order.
        //    (Chunks of 100: the receiving packet socket's buffer holds ~250.)
        for chunk in 0..3 {
            let s = base + 50_000 + chunk * 100;
            send(&tx, s..s + 100);
            assert_eq!(
                recv(&rx, 100, K - 1),
                (s..s + 100).collect::<Vec<_>>(),
                "round {round}: after restarting nf1; stats {:#}",
                stats(&dep)
            );
        }
        if round == 0 {
            let st = stats(&dep);
            assert!(
                counter(&st, 1, "frames_recovered") > 0,
                "the restarted nf1 returned none of the frames its predecessor held: {st:#}"
            );
        }
        // 3. No frame lost: every partition is whole again.
        let st = await_stats(&dep, "every NF's frames to be free again", |s| {
            all_frames_free(s, FRAMES)
        });
        assert!(
            st["nfs"]
                .as_array()
                .unwrap()
                .iter()
                .all(|n| n["inbox_depth"] == 0),
            "{st:#}"
        );
    }

    // 4. The entry NF dies: its XSKMAP slot is cleared, so frames sent
    //    while it is down never enter the chain.
    kill9(&mut nfs[0]);
    await_stats(&dep, "the monitor to see nf0 die", |s| {
        s["nfs"][0]["attached"] == serde_json::json!(false)
    });
    send(&tx, 900_000..900_100);
    nfs[0] = spawn_nf_host(&dep, "nf0");
    send(&tx, 910_000..910_100);
    let got = recv(&rx, 100, K - 1);
    assert_eq!(
        got,
        (910_000..910_100).collect::<Vec<_>>(),
        "frames sent while nf0 was dead came out (XSKMAP slot not cleared?)"
    );
    assert!(recv_one(&rx).is_none(), "an outage frame came out late");
    await_stats(&dep, "every NF's frames to be free again", |s| {
        all_frames_free(s, FRAMES)
    });
    drop(nfs);
    let status = monitor.stop();
    assert!(
        status.success(),
        "monitor exit: {status:?} {}",
        stderr_of(&mut monitor)
    );
}

/// One frame's sequence number, or None after the receive timeout.
fn recv_one(rx: &OwnedFd) -> Option<u32> {
    let mut buf = vec![0u8; 2048];
    // SAFETY: receiving into our buffer.
    let rc = unsafe { libc::recv(rx.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len(), 0) };
    (rc >= 18).then(|| u32::from_be_bytes(buf[14..18].try_into().unwrap()))
}

/// The monitor stops (SIGTERM to `flash-rt monitor` run on its own) while
/// its NF hosts run: every host notices the hang-up of its attach
/// connection and exits 0 by itself, saying so, instead of holding its
/// sockets and memory forever; the monitor detaches XDP and removes its
/// socket.
#[test]
fn netns_resilience_hosts_exit_when_the_monitor_stops() {
    if !root_or_skip("netns_resilience_hosts_exit_when_the_monitor_stops") {
        return;
    }
    const K: usize = 3;
    let dir = open_tempdir();
    let so = build_l2fwd(dir.path());
    let sock = dir.path().join("mon.sock");
    let dep: PathBuf = dir.path().join("deploy.yaml");
    // Hosts that go busy at once, so the spinning path notices too.
    let yaml = chain_yaml_with(
        K,
        true,
        &so,
        &sock,
        NOBODY,
        "vi1",
        "polling: {busy_threshold_pps: 1, window_us: 100, busy_timeout_us: 200000}",
    );
    std::fs::write(&dep, yaml).unwrap();
    let Chain {
        topo,
        mut monitor,
        mut nfs,
        tx,
        rx,
    } = Chain::start(&dep, K);
    send(&tx, 0..100);
    assert_eq!(recv(&rx, 100, K - 1), (0..100).collect::<Vec<_>>());
    let status = monitor.stop();
    assert!(status.success(), "monitor exit {status:?}");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    for (i, h) in nfs.iter_mut().enumerate() {
        let st = loop {
            if let Some(st) = h.child.try_wait().unwrap() {
                break st;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "nf{i} still running after its monitor stopped"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        let err = stderr_of(h);
        assert!(st.success(), "nf{i}: {st:?} {err}");
        assert!(err.contains("the monitor went away"), "nf{i}: {err}");
        assert!(!err.contains("refused system call"), "nf{i}: {err}");
    }
    assert!(!topo.dut_link("vi1").contains("xdp"), "XDP left attached");
    assert!(!sock.exists(), "socket file left behind");
}

/// A host killed but not reaped yet is a zombie, which `kill(pid, 0)` still
/// finds: the monitor must judge it gone all the same (by its pidfd) and
/// admit a restarted host while the zombie is still there.
#[test]
fn netns_resilience_restart_while_the_dead_host_is_a_zombie() {
    if !root_or_skip("netns_resilience_restart_while_the_dead_host_is_a_zombie") {
        return;
    }
    const K: usize = 2;
    let dir = open_tempdir();
    let (_sock, dep) = l2fwd_chain(dir.path(), K);
    let Chain {
        topo: _topo,
        mut monitor,
        mut nfs,
        tx,
        rx,
    } = Chain::start(&dep, K);
    send(&tx, 0..50);
    assert_eq!(recv(&rx, 50, K - 1), (0..50).collect::<Vec<_>>());
    let pid = nfs[1].child.id();
    // SAFETY: signalling our own child; it is not waited for (a zombie).
    assert_eq!(unsafe { libc::kill(pid as i32, libc::SIGKILL) }, 0);
    await_stats(&dep, "the monitor to see nf1 die", |s| {
        s["nfs"][1]["attached"] == serde_json::json!(false)
    });
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    assert!(status.contains("State:\tZ"), "not a zombie: {status}");
    let restarted = spawn_nf_host(&dep, "nf1");
    send(&tx, 100..150);
    assert_eq!(recv(&rx, 50, K - 1), (100..150).collect::<Vec<_>>());
    // Now reap it (the Proc guard would otherwise SIGTERM a dead pid).
    let _ = nfs[1].child.wait();
    nfs[1] = restarted;
    drop(nfs);
    assert!(monitor.stop().success());
}
