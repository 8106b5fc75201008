//! End-to-end benchmark of the on-line runtime (FLASH §6 on this machine):
//! real frames through chains of 1/2/4/8 L2-forward NFs between two network
//! namespaces, in four configurations measured the same way —
//!
//! - `zero-copy`: flash-rt, one NF host process per NF, one shared UMEM,
//!   descriptors passed through shared-memory rings;
//! - `single-copy`: flash-rt, a UMEM per NF, one memcpy per hop;
//! - `threads`: every NF a thread of one process passing descriptors through
//!   the same rings (the AF_XDP-US-style upper bound: no process boundary);
//! - `veth-chain`: one AF_XDP socket per NF, hops chained through extra veth
//!   pairs in the kernel (a kernel copy per hop, what chaining plain AF_XDP
//!   applications looks like).
//!
//! Throughput is closed-loop (at most 256 frames in flight, so nothing is
//! dropped) over a fixed window; latency is the round trip of single frames
//! (timestamps in the payload), median and p99. Every configuration is run
//! `repeats` times, interleaved, and medians and ratios are taken within this
//! run (this 2-core VM is noisy by up to 2x between runs).
//!
//! Backpressure: a 3-NF chain ending in a deliberately slow NF
//! (`benches/data/slow_fwd.c`) is offered more than it can take; total CPU of
//! the monitor and NF hosts (utime+stime from /proc/<pid>/stat) is compared
//! between smart polling (FLASH §4.4: sleep when idle, throttle on a full
//! downstream ring) and busy polling everywhere, at (near) equal
//! throughput. Idle: CPU of a 4-NF chain with no traffic, both ways.
//!
//! Prints one JSON document on stdout (progress on stderr). Needs root
//! (namespaces, XDP); otherwise prints `{"skipped": ...}` and exits 0.
//! Options: `--quick` (1 repeat, shorter windows), `--repeats N`. Without
//! `--bench` (which `cargo bench` passes) it assumes `cargo test` mode and
//! skips. With `NFC_BENCH_OUT` set (by `cargo xtask bench`) the JSON is also
//! written to `$NFC_BENCH_OUT/flash_chain.json`.
//! Internal: `__threads <deployment>` hosts every NF as a thread.

#[path = "../tests/netns_common/mod.rs"]
mod netns_common;

use flash_rt::deploy::{
    Deployment, Endpoint, GroupSpec, InterfaceSpec, LinkMode, LinkSpec, MonitorConfig, NfSpec,
    PollingConfig, XdpMode,
};
use flash_rt::host::now_ns;
use netns_common::{
    in_netns, nf_macs, open_tempdir, spawn_ready, stderr_of, tag, NetNs, Proc, BIN, ETHERTYPE,
};
use serde_json::{json, Value};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const NOBODY: u32 = 65534;
const WINDOW: u64 = 256;
const FRAME_LEN: usize = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    ZeroCopy,
    SingleCopy,
    Threads,
    VethChain,
}

impl Mode {
    const ALL: [Mode; 4] = [
        Mode::ZeroCopy,
        Mode::SingleCopy,
        Mode::Threads,
        Mode::VethChain,
    ];
    fn name(self) -> &'static str {
        match self {
            Mode::ZeroCopy => "zero-copy",
            Mode::SingleCopy => "single-copy",
            Mode::Threads => "threads",
            Mode::VethChain => "veth-chain",
        }
    }
}

fn ip(args: &[&str]) {
    let out = Command::new("ip").args(args).output().expect("run ip");
    assert!(
        out.status.success(),
        "ip {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn mac_str(m: [u8; 6]) -> String {
    m.iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(":")
}

/// Namespaces: peer `vi0`/`vo0` <-> DUT `vi1`/`vo1`, plus `hops` veth pairs
/// `hA<i>`/`hB<i>` inside the DUT; IPv6 off so only our frames flow.
struct Net {
    dut: NetNs,
    peer: NetNs,
}

impl Net {
    fn new(hops: usize) -> Net {
        let t = tag();
        let dut = NetNs::new(format!("nfbd{t}"));
        let peer = NetNs::new(format!("nfbp{t}"));
        for ns in [&dut.name, &peer.name] {
            let st = Command::new("ip")
                .args([
                    "netns",
                    "exec",
                    ns,
                    "sysctl",
                    "-qw",
                    "net.ipv6.conf.all.disable_ipv6=1",
                    "net.ipv6.conf.default.disable_ipv6=1",
                ])
                .status()
                .expect("sysctl");
            assert!(st.success());
        }
        for (a, b) in [("vi0", "vi1"), ("vo0", "vo1")] {
            ip(&[
                "-n", &peer.name, "link", "add", a, "type", "veth", "peer", "name", b, "netns",
                &dut.name,
            ]);
            ip(&["-n", &peer.name, "link", "set", a, "up"]);
            ip(&["-n", &dut.name, "link", "set", b, "up"]);
        }
        for h in 0..hops {
            let (a, b) = (format!("hA{h}"), format!("hB{h}"));
            ip(&[
                "-n", &dut.name, "link", "add", &a, "type", "veth", "peer", "name", &b,
            ]);
            ip(&["-n", &dut.name, "link", "set", &a, "up"]);
            ip(&["-n", &dut.name, "link", "set", &b, "up"]);
        }
        Net { dut, peer }
    }
}

fn ep_if(name: &str) -> Endpoint {
    Endpoint {
        nf: None,
        iface: Some(name.into()),
        port: None,
    }
}

fn ep_nf(id: &str) -> Endpoint {
    Endpoint {
        nf: Some(id.into()),
        iface: None,
        port: Some(0),
    }
}

/// A chain of `k` forwarders (`objects[i]`, config from `extra`) in `mode`.
fn deployment(
    mode: Mode,
    objects: &[(PathBuf, Vec<(String, String)>)],
    polling: PollingConfig,
    sock: &Path,
) -> Deployment {
    let k = objects.len();
    let mut interfaces = vec![
        InterfaceSpec {
            name: "in".into(),
            ifname: "vi1".into(),
            queue: 0,
        },
        InterfaceSpec {
            name: "out".into(),
            ifname: "vo1".into(),
            queue: 0,
        },
    ];
    let id = |i: usize| format!("nf{i}");
    let nfs: Vec<NfSpec> = objects
        .iter()
        .enumerate()
        .map(|(i, (so, extra))| {
            let (d, s) = nf_macs(i);
            let mut config = vec![
                ("dst_mac".to_string(), mac_str(d)),
                ("src_mac".to_string(), mac_str(s)),
            ];
            config.extend(extra.iter().cloned());
            NfSpec {
                id: id(i),
                object: so.clone(),
                config,
                threads: 1,
                uid: Some(NOBODY),
                gid: Some(NOBODY),
                frames: 2048,
                polling,
            }
        })
        .collect();
    let mut links = vec![LinkSpec {
        from: ep_if("in"),
        to: ep_nf(&id(0)),
        mode: None,
    }];
    for i in 1..k {
        match mode {
            Mode::ZeroCopy | Mode::Threads => links.push(LinkSpec {
                from: ep_nf(&id(i - 1)),
                to: ep_nf(&id(i)),
                mode: Some(LinkMode::ZeroCopy),
            }),
            Mode::SingleCopy => links.push(LinkSpec {
                from: ep_nf(&id(i - 1)),
                to: ep_nf(&id(i)),
                mode: Some(LinkMode::SingleCopy),
            }),
            Mode::VethChain => {
                let h = i - 1;
                interfaces.push(InterfaceSpec {
                    name: format!("a{h}"),
                    ifname: format!("hA{h}"),
                    queue: 0,
                });
                interfaces.push(InterfaceSpec {
                    name: format!("b{h}"),
                    ifname: format!("hB{h}"),
                    queue: 0,
                });
                links.push(LinkSpec {
                    from: ep_nf(&id(i - 1)),
                    to: ep_if(&format!("a{h}")),
                    mode: None,
                });
                links.push(LinkSpec {
                    from: ep_if(&format!("b{h}")),
                    to: ep_nf(&id(i)),
                    mode: None,
                });
            }
        }
    }
    links.push(LinkSpec {
        from: ep_nf(&id(k - 1)),
        to: ep_if("out"),
        mode: None,
    });
    let groups = match mode {
        Mode::ZeroCopy | Mode::Threads => vec![GroupSpec {
            name: "chain".into(),
            nfs: (0..k).map(id).collect(),
        }],
        _ => vec![],
    };
    Deployment {
        version: 1,
        name: format!("bench-{}-{k}", mode.name()),
        monitor: MonitorConfig {
            socket: sock.to_path_buf(),
            interfaces,
            xdp_mode: XdpMode::Auto,
            frame_size: 2048,
            ring_size: 2048,
            inbox_size: 1024,
            batch_size: 64,
        },
        nfs,
        links,
        groups,
    }
}

/// A running chain: namespaces, monitor, NF host processes.
struct Running {
    hosts: Vec<Proc>,
    monitor: Proc,
    net: Net,
    _dir: tempfile::TempDir,
}

impl Running {
    fn start(
        mode: Mode,
        objects: &[(PathBuf, Vec<(String, String)>)],
        polling: PollingConfig,
    ) -> Running {
        let k = objects.len();
        let net = Net::new(if mode == Mode::VethChain { k - 1 } else { 0 });
        let dir = open_tempdir();
        let dep = dir.path().join("deploy.json");
        std::fs::write(
            &dep,
            deployment(mode, objects, polling, &dir.path().join("mon.sock")).to_json(),
        )
        .unwrap();
        let mut cmd = Command::new("ip");
        cmd.args(["netns", "exec", &net.dut.name, BIN, "monitor"])
            .arg(&dep);
        let (mut monitor, line) = spawn_ready(cmd, "monitor");
        assert!(
            line.contains("ready"),
            "monitor: {line}{}",
            stderr_of(&mut monitor)
        );
        let mut hosts = vec![];
        if mode == Mode::Threads {
            let mut cmd = Command::new(std::env::current_exe().unwrap());
            cmd.arg("__threads").arg(&dep).uid(NOBODY).gid(NOBODY);
            let (mut p, line) = spawn_ready(cmd, "threads host");
            assert!(
                line.contains("ready"),
                "threads host: {line}{}",
                stderr_of(&mut p)
            );
            hosts.push(p);
        } else {
            for i in 0..k {
                let mut cmd = Command::new(BIN);
                cmd.arg("nf")
                    .arg(&dep)
                    .arg(format!("nf{i}"))
                    .uid(NOBODY)
                    .gid(NOBODY);
                let (mut p, line) = spawn_ready(cmd, "nf");
                assert!(line.contains("ready"), "nf{i}: {line}{}", stderr_of(&mut p));
                hosts.push(p);
            }
        }
        Running {
            hosts,
            monitor,
            net,
            _dir: dir,
        }
    }

    fn pids(&self) -> Vec<u32> {
        std::iter::once(&self.monitor)
            .chain(&self.hosts)
            .map(|p| p.child.id())
            .collect()
    }

    fn sockets(&self) -> (OwnedFd, OwnedFd) {
        in_netns(&self.net.peer.name, || {
            (packet_socket("vi0"), packet_socket("vo0"))
        })
    }
}

/// AF_PACKET socket on `ifname` for the bench ethertype, non-blocking.
fn packet_socket(ifname: &str) -> OwnedFd {
    // SAFETY: plain socket() call.
    let fd = unsafe {
        libc::socket(
            libc::AF_PACKET,
            libc::SOCK_RAW | libc::SOCK_CLOEXEC | libc::SOCK_NONBLOCK,
            i32::from(ETHERTYPE.to_be()),
        )
    };
    assert!(fd >= 0, "AF_PACKET: {}", std::io::Error::last_os_error());
    // SAFETY: fresh fd.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let c = std::ffi::CString::new(ifname).unwrap();
    // SAFETY: valid C string.
    let idx = unsafe { libc::if_nametoindex(c.as_ptr()) } as i32;
    // SAFETY: zeroed sockaddr_ll is valid.
    let mut sa: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
    sa.sll_family = libc::AF_PACKET as u16;
    sa.sll_protocol = ETHERTYPE.to_be();
    sa.sll_ifindex = idx;
    // SAFETY: valid sockaddr_ll.
    let rc = unsafe {
        libc::bind(
            fd.as_raw_fd(),
            (&sa as *const libc::sockaddr_ll).cast(),
            std::mem::size_of::<libc::sockaddr_ll>() as u32,
        )
    };
    assert_eq!(rc, 0, "bind {ifname}: {}", std::io::Error::last_os_error());
    let big: i32 = 4 << 20;
    for opt in [libc::SO_RCVBUF, libc::SO_SNDBUF] {
        // SAFETY: valid int option.
        unsafe {
            libc::setsockopt(
                fd.as_raw_fd(),
                libc::SOL_SOCKET,
                opt,
                (&big as *const i32).cast(),
                4,
            )
        };
    }
    fd
}

/// Frames carry (sequence, send timestamp) after the Ethernet header.
fn fill_frame(buf: &mut [u8; FRAME_LEN], seq: u64, ts: u64) {
    buf[12..14].copy_from_slice(&ETHERTYPE.to_be_bytes());
    buf[14..22].copy_from_slice(&seq.to_be_bytes());
    buf[22..30].copy_from_slice(&ts.to_be_bytes());
}

/// Send `n` frames in one sendmmsg; returns how many went.
fn send_batch(fd: &OwnedFd, bufs: &mut [[u8; FRAME_LEN]], seq0: u64) -> usize {
    let ts = now_ns();
    let mut iovs: Vec<libc::iovec> = Vec::with_capacity(bufs.len());
    for (i, b) in bufs.iter_mut().enumerate() {
        fill_frame(b, seq0 + i as u64, ts);
        iovs.push(libc::iovec {
            iov_base: b.as_mut_ptr().cast(),
            iov_len: FRAME_LEN,
        });
    }
    // SAFETY: zeroed mmsghdr is valid; fields set below.
    let mut msgs: Vec<libc::mmsghdr> = (0..bufs.len())
        .map(|_| unsafe { std::mem::zeroed() })
        .collect();
    for (m, iov) in msgs.iter_mut().zip(iovs.iter_mut()) {
        m.msg_hdr.msg_iov = iov;
        m.msg_hdr.msg_iovlen = 1;
    }
    // SAFETY: msgs and iovs point at live buffers.
    let rc = unsafe { libc::sendmmsg(fd.as_raw_fd(), msgs.as_mut_ptr(), msgs.len() as u32, 0) };
    rc.max(0) as usize
}

/// Receive what is waiting (non-blocking); returns latencies (ns) of each frame.
fn recv_batch(fd: &OwnedFd, bufs: &mut [[u8; FRAME_LEN]], lat: &mut Vec<u64>) -> usize {
    let mut iovs: Vec<libc::iovec> = bufs
        .iter_mut()
        .map(|b| libc::iovec {
            iov_base: b.as_mut_ptr().cast(),
            iov_len: FRAME_LEN,
        })
        .collect();
    // SAFETY: zeroed mmsghdr is valid.
    let mut msgs: Vec<libc::mmsghdr> = (0..bufs.len())
        .map(|_| unsafe { std::mem::zeroed() })
        .collect();
    for (m, iov) in msgs.iter_mut().zip(iovs.iter_mut()) {
        m.msg_hdr.msg_iov = iov;
        m.msg_hdr.msg_iovlen = 1;
    }
    // SAFETY: as above.
    let rc = unsafe {
        libc::recvmmsg(
            fd.as_raw_fd(),
            msgs.as_mut_ptr(),
            msgs.len() as u32,
            libc::MSG_DONTWAIT,
            std::ptr::null_mut(),
        )
    };
    if rc <= 0 {
        return 0;
    }
    let now = now_ns();
    for b in &bufs[..rc as usize] {
        let ts = u64::from_be_bytes(b[22..30].try_into().unwrap());
        lat.push(now.saturating_sub(ts));
    }
    rc as usize
}

fn wait_readable(fd: &OwnedFd, ms: i32) -> bool {
    let mut p = libc::pollfd {
        fd: fd.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd.
    unsafe { libc::poll(&mut p, 1, ms) > 0 }
}

struct Load {
    kpps: f64,
    lost: u64,
    /// Frames received over the whole call (warm-up included).
    received: u64,
}

/// Closed-loop throughput over `secs` (after `warm` seconds of warm-up).
fn throughput(tx: &OwnedFd, rx: &OwnedFd, warm: f64, secs: f64) -> Load {
    let mut sbufs = vec![[0u8; FRAME_LEN]; 32];
    let mut rbufs = vec![[0u8; FRAME_LEN]; 64];
    for b in sbufs.iter_mut() {
        b[0..6].copy_from_slice(&netns_common::DST_MAC);
        b[6..12].copy_from_slice(&netns_common::SRC_MAC);
    }
    let mut lat = Vec::with_capacity(1 << 16);
    let (mut sent, mut got, mut lost) = (0u64, 0u64, 0u64);
    let start = now_ns();
    let t_warm = start + (warm * 1e9) as u64;
    let t_end = t_warm + (secs * 1e9) as u64;
    let mut got_at_warm = None;
    loop {
        let now = now_ns();
        if now >= t_end {
            break;
        }
        if got_at_warm.is_none() && now >= t_warm {
            got_at_warm = Some((got, now));
        }
        let in_flight = sent.saturating_sub(got + lost);
        let room = (WINDOW - in_flight.min(WINDOW)) as usize;
        if room >= 16 {
            let n = room.min(32);
            sent += send_batch(tx, &mut sbufs[..n], sent) as u64;
        }
        lat.clear();
        let r = recv_batch(rx, &mut rbufs, &mut lat) as u64;
        got += r;
        if r == 0 && in_flight >= WINDOW && !wait_readable(rx, 50) {
            // The window is stuck: count what is in flight as lost.
            lost += in_flight;
        }
    }
    let (g0, t0) = got_at_warm.unwrap_or((0, start));
    let kpps = (got - g0) as f64 / ((now_ns() - t0) as f64 / 1e9) / 1e3;
    Load {
        kpps,
        lost,
        received: got,
    }
}

/// Round-trip latency of `n` single frames (µs): (median, p99).
fn latency(tx: &OwnedFd, rx: &OwnedFd, n: usize) -> (f64, f64) {
    let mut sbuf = vec![[0u8; FRAME_LEN]; 1];
    sbuf[0][0..6].copy_from_slice(&netns_common::DST_MAC);
    let mut rbufs = vec![[0u8; FRAME_LEN]; 8];
    let mut lat = vec![];
    let mut one = vec![];
    for i in 0..n {
        send_batch(tx, &mut sbuf, 1 << 40 | i as u64);
        one.clear();
        while one.is_empty() && wait_readable(rx, 200) {
            recv_batch(rx, &mut rbufs, &mut one);
        }
        lat.extend_from_slice(&one[..one.len().min(1)]);
    }
    lat.sort_unstable();
    if lat.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let q = |f: f64| lat[((lat.len() - 1) as f64 * f) as usize] as f64 / 1e3;
    (q(0.5), q(0.99))
}

/// Open-loop load at `rate_pps` for `secs`: delivered kpps.
fn paced(
    tx: &OwnedFd,
    rx: &OwnedFd,
    rate_pps: f64,
    secs: f64,
    on_window: &mut dyn FnMut(bool),
) -> f64 {
    let mut sbufs = vec![[0u8; FRAME_LEN]; 16];
    for b in sbufs.iter_mut() {
        b[0..6].copy_from_slice(&netns_common::DST_MAC);
    }
    let mut rbufs = vec![[0u8; FRAME_LEN]; 64];
    let mut lat = vec![];
    let gap = (16.0 / rate_pps * 1e9) as u64;
    let start = now_ns();
    let warm = start + 300_000_000;
    let end = warm + (secs * 1e9) as u64;
    let (mut next, mut sent, mut got) = (start, 0u64, 0u64);
    let mut at_warm = None;
    loop {
        let now = now_ns();
        if now >= end {
            break;
        }
        if at_warm.is_none() && now >= warm {
            at_warm = Some((got, now));
            on_window(true);
        }
        if now >= next {
            sent += send_batch(tx, &mut sbufs, sent) as u64;
            next += gap;
        }
        lat.clear();
        got += recv_batch(rx, &mut rbufs, &mut lat) as u64;
        if now < next {
            std::thread::sleep(Duration::from_nanos((next - now).min(200_000)));
        }
    }
    on_window(false);
    let (g0, t0) = at_warm.unwrap_or((0, start));
    (got - g0) as f64 / ((now_ns() - t0) as f64 / 1e9) / 1e3
}

/// utime+stime (ticks) of every pid, summed.
fn cpu_ticks(pids: &[u32]) -> u64 {
    pids.iter()
        .filter_map(|p| std::fs::read_to_string(format!("/proc/{p}/stat")).ok())
        .filter_map(|s| {
            let rest = &s[s.rfind(')')? + 2..];
            let f: Vec<&str> = rest.split_whitespace().collect();
            Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
        })
        .sum()
}

fn clk_tck() -> f64 {
    // SAFETY: sysconf is always safe.
    unsafe { libc::sysconf(libc::_SC_CLK_TCK) as f64 }
}

fn median(v: &[f64]) -> f64 {
    let mut s: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    if s.is_empty() {
        return f64::NAN;
    }
    s.sort_by(|a, b| a.partial_cmp(b).unwrap());
    s[s.len() / 2]
}

fn round(x: f64) -> Value {
    if x.is_finite() {
        json!((x * 100.0).round() / 100.0)
    } else {
        Value::Null
    }
}

fn build_nf(name: &str, sources: &[PathBuf], out: &Path) -> PathBuf {
    let opts = nfc_nfs::BuildOptions {
        out_dir: out.to_path_buf(),
        sanitize: false,
        extra_cflags: vec![],
    };
    nfc_nfs::build(name, sources, &opts)
        .unwrap_or_else(|e| panic!("build {name}: {e}"))
        .so
}

/// `__threads <deployment>`: attach every NF of the deployment from this
/// one process, one thread each, until SIGTERM.
fn threads_host(dep_path: &Path) {
    use flash_rt::host::cnf::CNf;
    use flash_rt::host::{NfHost, RunOptions};
    use std::os::fd::AsFd;
    // SAFETY: blocking SIGTERM/SIGINT for the process (threads inherit the mask) and creating a signalfd.
    let stop = unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGTERM);
        libc::sigaddset(&mut set, libc::SIGINT);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        OwnedFd::from_raw_fd(libc::signalfd(
            -1,
            &set,
            libc::SFD_CLOEXEC | libc::SFD_NONBLOCK,
        ))
    };
    let dep = Deployment::load(dep_path).expect("deployment");
    let stop = std::sync::Arc::new(stop);
    let (tx, rx) = std::sync::mpsc::channel();
    let mut handles = vec![];
    for nf in dep.nfs.clone() {
        let (dep, stop, tx) = (dep.clone(), stop.clone(), tx.clone());
        handles.push(std::thread::spawn(move || {
            let mut c =
                CNf::load(&nf.id, &nf.object, &nf.config, Path::new("/tmp")).expect("load NF");
            let mut host = NfHost::attach(dep, &nf.id).expect("attach");
            tx.send(()).unwrap();
            host.run(&mut c, stop.as_fd(), &RunOptions::default())
                .expect("run");
        }));
    }
    for _ in &dep.nfs {
        rx.recv().expect("thread attached");
    }
    println!("threads host ready ({} NFs)", dep.nfs.len());
    use std::io::Write;
    let _ = std::io::stdout().flush();
    for h in handles {
        let _ = h.join();
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("__threads") {
        threads_host(Path::new(&args[2]));
        return;
    }
    if !args.iter().any(|a| a == "--bench") {
        // `cargo test --benches` runs bench binaries without `--bench`.
        println!(
            "{}",
            json!({"bench": "flash_chain", "skipped": "test mode (run it with `cargo bench`)"})
        );
        return;
    }
    // SAFETY: geteuid never fails.
    if unsafe { libc::geteuid() } != 0 {
        println!(
            "{}",
            json!({"bench": "flash_chain", "skipped": "needs root (network namespaces, veth, XDP)"})
        );
        eprintln!("flash_chain: SKIPPED: needs root");
        return;
    }
    let quick = args.iter().any(|a| a == "--quick");
    let repeats: usize = args
        .iter()
        .position(|a| a == "--repeats")
        .and_then(|i| args.get(i + 1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(if quick { 1 } else { 3 });
    let (warm, secs, pings) = if quick {
        (0.1, 0.4, 50)
    } else {
        (0.2, 1.0, 200)
    };
    let lengths = [1usize, 2, 4, 8];
    let t_start = std::time::Instant::now();

    let build_dir = open_tempdir();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let l2fwd = build_nf(
        "l2fwd",
        &nfc_nfs::builtin("l2fwd").expect("nfs/l2fwd").sources,
        build_dir.path(),
    );
    let slow = build_nf(
        "slow_fwd",
        &[root.join("benches/data/slow_fwd.c")],
        build_dir.path(),
    );

    // Throughput and latency, interleaved repeats.
    let mut kpps: Vec<Vec<Vec<f64>>> = vec![vec![vec![]; lengths.len()]; Mode::ALL.len()];
    let mut lat: Vec<Vec<Vec<(f64, f64)>>> = vec![vec![vec![]; lengths.len()]; Mode::ALL.len()];
    let mut lost: Vec<Vec<u64>> = vec![vec![0; lengths.len()]; Mode::ALL.len()];
    let mut cpu: Vec<Vec<Vec<f64>>> = vec![vec![vec![]; lengths.len()]; Mode::ALL.len()];
    for rep in 0..repeats {
        for (li, &k) in lengths.iter().enumerate() {
            for (mi, &mode) in Mode::ALL.iter().enumerate() {
                let objects: Vec<(PathBuf, Vec<(String, String)>)> =
                    (0..k).map(|_| (l2fwd.clone(), vec![])).collect();
                let run = Running::start(mode, &objects, PollingConfig::default());
                let (tx, rx) = run.sockets();
                let pids = run.pids();
                let c0 = cpu_ticks(&pids);
                let load = throughput(&tx, &rx, warm, secs);
                // Chain CPU (monitor + NF hosts) per forwarded frame, in µs.
                let cpu_us =
                    (cpu_ticks(&pids) - c0) as f64 / clk_tck() * 1e6 / load.received.max(1) as f64;
                let l = latency(&tx, &rx, pings);
                eprintln!(
                    "flash_chain: rep {rep} {:<11} k={k}: {:>8.1} kpps, {cpu_us:>6.2} CPU-us/frame, rtt p50 {:>7.1} us p99 {:>7.1} us, lost {}",
                    mode.name(),
                    load.kpps,
                    l.0,
                    l.1,
                    load.lost
                );
                kpps[mi][li].push(load.kpps);
                cpu[mi][li].push(cpu_us);
                lat[mi][li].push(l);
                lost[mi][li] += load.lost;
                drop(run);
            }
        }
    }
    let mut results = vec![];
    for (mi, mode) in Mode::ALL.iter().enumerate() {
        for (li, &k) in lengths.iter().enumerate() {
            let l50: Vec<f64> = lat[mi][li].iter().map(|l| l.0).collect();
            let l99: Vec<f64> = lat[mi][li].iter().map(|l| l.1).collect();
            results.push(json!({
                "mode": mode.name(), "nfs": k,
                "kpps": kpps[mi][li].iter().map(|x| round(*x)).collect::<Vec<_>>(),
                "median_kpps": round(median(&kpps[mi][li])),
                "cpu_us_per_frame": round(median(&cpu[mi][li])),
                "rtt_us_p50": round(median(&l50)), "rtt_us_p99": round(median(&l99)),
                "lost_frames": lost[mi][li],
            }));
        }
    }
    // Ratios of medians within this run, per chain length: throughput,
    // chain CPU per frame and unloaded round-trip time.
    let lat50: Vec<Vec<Vec<f64>>> = lat
        .iter()
        .map(|m| m.iter().map(|v| v.iter().map(|l| l.0).collect()).collect())
        .collect();
    let ratio = |metric: &Vec<Vec<Vec<f64>>>, a: Mode, b: Mode| -> Value {
        let (ia, ib) = (
            Mode::ALL.iter().position(|m| *m == a).unwrap(),
            Mode::ALL.iter().position(|m| *m == b).unwrap(),
        );
        let m: serde_json::Map<String, Value> = lengths
            .iter()
            .enumerate()
            .map(|(li, k)| {
                (
                    k.to_string(),
                    round(median(&metric[ia][li]) / median(&metric[ib][li])),
                )
            })
            .collect();
        Value::Object(m)
    };
    let pairs = [
        ("zero-copy/veth-chain", Mode::ZeroCopy, Mode::VethChain),
        ("zero-copy/single-copy", Mode::ZeroCopy, Mode::SingleCopy),
        ("threads/zero-copy", Mode::Threads, Mode::ZeroCopy),
        ("single-copy/veth-chain", Mode::SingleCopy, Mode::VethChain),
    ];
    let mut ratios = serde_json::Map::new();
    for (what, metric) in [
        ("kpps", &kpps),
        ("cpu_us_per_frame", &cpu),
        ("rtt_us_p50", &lat50),
    ] {
        let m: serde_json::Map<String, Value> = pairs
            .iter()
            .map(|(n, a, b)| (n.to_string(), ratio(metric, *a, *b)))
            .collect();
        ratios.insert(what.to_string(), Value::Object(m));
    }

    // Backpressure: l2fwd -> l2fwd -> slow_fwd, offered 3x what slow_fwd takes.
    let spin_ns = 40_000u64;
    let offered = 3.0 * 1e9 / spin_ns as f64;
    let busy = PollingConfig {
        busy_threshold_pps: 0,
        busy_timeout_us: 3_600_000_000,
        throttle_us: 0,
        ..PollingConfig::default()
    };
    let mut bp = serde_json::Map::new();
    let mut bp_cpu = vec![];
    for (name, polling) in [("smart", PollingConfig::default()), ("busy", busy)] {
        let objects = vec![
            (l2fwd.clone(), vec![]),
            (l2fwd.clone(), vec![]),
            (
                slow.clone(),
                vec![("spin_ns".to_string(), spin_ns.to_string())],
            ),
        ];
        let mut cpu = vec![];
        let mut rates = vec![];
        for _ in 0..repeats {
            let run = Running::start(Mode::ZeroCopy, &objects, polling);
            let (tx, rx) = run.sockets();
            let pids = run.pids();
            let mut mark = (0u64, 0u64);
            let mut cpu_pct = 0.0;
            let rate = paced(&tx, &rx, offered, secs * 1.5, &mut |start| {
                if start {
                    mark = (cpu_ticks(&pids), now_ns());
                } else {
                    let dt = (now_ns() - mark.1) as f64 / 1e9;
                    cpu_pct = (cpu_ticks(&pids) - mark.0) as f64 / clk_tck() / dt * 100.0;
                }
            });
            eprintln!("flash_chain: backpressure {name}: {rate:.1} kpps delivered of {:.1} offered, chain CPU {cpu_pct:.0}%", offered / 1e3);
            cpu.push(cpu_pct);
            rates.push(rate);
        }
        bp_cpu.push(median(&cpu));
        bp.insert(
            name.to_string(),
            json!({
                "delivered_kpps": round(median(&rates)),
                "cpu_pct": round(median(&cpu)),
                "cpu_pct_runs": cpu.iter().map(|x| round(*x)).collect::<Vec<_>>(),
                // CPU-µs per delivered packet: comparable when throughputs differ.
                "cpu_us_per_packet": round(median(&cpu.iter().zip(&rates).map(|(c, r)| c / 100.0 / (r * 1e3) * 1e6).collect::<Vec<_>>())),
            }),
        );
    }
    bp.insert("offered_kpps".into(), round(offered / 1e3));
    bp.insert("slow_nf_spin_ns".into(), json!(spin_ns));
    bp.insert(
        "cpu_ratio_busy_over_smart".into(),
        round(bp_cpu[1] / bp_cpu[0]),
    );

    // Idle: a 4-NF zero-copy chain with no traffic.
    let mut idle = serde_json::Map::new();
    for (name, polling) in [("smart", PollingConfig::default()), ("busy", busy)] {
        let objects: Vec<(PathBuf, Vec<(String, String)>)> =
            (0..4).map(|_| (l2fwd.clone(), vec![])).collect();
        let run = Running::start(Mode::ZeroCopy, &objects, polling);
        let (tx, rx) = run.sockets();
        // A short burst first, so busy pollers have switched to busy mode.
        let _ = throughput(&tx, &rx, 0.0, 0.1);
        let pids = run.pids();
        let (c0, t0) = (cpu_ticks(&pids), now_ns());
        std::thread::sleep(Duration::from_secs_f64(secs));
        let pct =
            (cpu_ticks(&pids) - c0) as f64 / clk_tck() / ((now_ns() - t0) as f64 / 1e9) * 100.0;
        eprintln!("flash_chain: idle 4-NF chain, {name} polling: {pct:.1}% CPU");
        idle.insert(format!("cpu_pct_{name}"), round(pct));
    }
    idle.insert("nfs".into(), json!(4));

    let doc = json!({
        "bench": "flash_chain",
        "machine": {"cpus": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0), "clk_tck": clk_tck()},
        "repeats": repeats,
        "frame_bytes": FRAME_LEN,
        "window_frames": WINDOW,
        "measure_secs": secs,
        "throughput": results,
        "ratios_of_medians": ratios,
        "backpressure": bp,
        "idle": idle,
        "wall_secs": round(t_start.elapsed().as_secs_f64()),
    });
    let text = serde_json::to_string_pretty(&doc).unwrap();
    println!("{text}");
    // `cargo xtask bench` collects reports in NFC_BENCH_OUT.
    if let Some(dir) = std::env::var_os("NFC_BENCH_OUT") {
        let path = Path::new(&dir).join("flash_chain.json");
        if let Err(e) = std::fs::create_dir_all(&dir).and_then(|_| std::fs::write(&path, &text)) {
            eprintln!("flash_chain: cannot write {}: {e}", path.display());
        }
    }
}
