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
//! Traffic comes from a user-space AF_XDP generator and goes to an AF_XDP
//! sink (`flash_rt::xdp::loadgen`) on the peer's ends of the two veth pairs,
//! the software stand-in for FLASH's hardware generator: pre-built frames
//! in a UMEM, batched TX (only sequence number and timestamp rewritten),
//! batched RX, no socket call per packet. Its own ceiling is measured first
//! through a plain veth pair (no chain) and printed, so every chain number
//! can be read against it.
//!
//! NF hosts are placed on CPUs exactly as `nfc run` places them
//! (`Placement::cpus_for`, the function `nfc run` calls): the zero-copy and
//! single-copy chains run under each placement — `default` (what `nfc run`
//! does unless told otherwise: a CPU per NF host when CPUs outnumber hosts,
//! else none), `no-pin` (`--pin never`) and `per-nf` (`--pin always`: a CPU
//! per NF, contiguous runs of the chain per CPU when NFs outnumber CPUs) —
//! and the baselines under the default. All use the runtime's default
//! smart polling: on a shared CPU they wait for batches under SCHED_BATCH
//! and the interface-reading NF moderates its receive wakeups
//! (docs/targets/flash.md). The generator is not pinned.
//!
//! Each run measures two ways. Closed loop (below) keeps at most a window
//! in flight, so it measures what the chain can do without overload. Open
//! loop sends at the generator's full rate whatever the chain takes, as an
//! independent traffic source does, and counts the frames the kernel
//! dropped at the chain's ingress socket (nf0's RX socket: RX ring full or
//! fill ring empty), from the monitor's socket statistics. The generator's
//! own ceiling is measured both ways on a plain veth pair; a median within
//! 10% of it is marked `*`: there the generator, not the chain, limits the
//! figure. The default placement is compared with the two others per link
//! mode and chain length, with the run-to-run noise measured here (half the
//! range of each configuration's repeats, summed for the two compared).
//!
//! Throughput is closed-loop with a large window: at most `WINDOW` (1024)
//! frames in flight, sent in batches of up to `ClosedLoop::BATCH` (256)
//! whenever the window has room. Closed rather than open loop because this VM has 2 cores that
//! the generator, sink and chain share: an open-loop generator at full rate
//! would burn a core on frames the chain drops at its ingress, so chains
//! would be measured with half the machine. When the window is full the
//! generator blocks in poll() on the sink socket instead of spinning; frames
//! are known by their stamped sequence number and one still missing once
//! frames sent after it came back (RACK-style) counts as lost and frees
//! its slot (`ClosedLoop`, reported). Latency is
//! reported twice: under that load (send-to-sink time of every frame in the
//! window, p50/p99: mostly queueing behind the window) and unloaded (round
//! trip of single frames). Where CPU went is printed per run: the bench
//! process (generator + sink), the monitor and the NF hosts, as
//! utime+stime from /proc/<pid>/stat (softirq work run by ksoftirqd is not
//! in any of them). Each configuration runs `repeats` times, interleaved;
//! medians and the target ratios (zc8/zc1 >= 0.8, zc8/veth8 >= 2) are taken
//! within this run (this 2-core VM is noisy by up to 2x between runs, and
//! far worse while other jobs compile: the load average is printed).
//!
//! Backpressure: a 3-NF chain ending in a deliberately slow NF
//! (`benches/data/slow_fwd.c`, 40 us/packet) is offered 3x what it takes,
//! open loop; total CPU of the monitor and NF hosts is compared between
//! smart polling (FLASH §4.4: sleep when idle, throttle on a full
//! downstream ring) and busy polling everywhere, with both throughputs
//! shown, in two setups: `default` (`nfc run`'s placement, nothing pinned
//! by hand) and `pinned` (the slow NF alone on the last CPU, the rest —
//! generator, monitor, upstream NFs — on the others, so both policies are
//! limited by the same NF). Idle: CPU of a 4-NF chain with no traffic,
//! both ways, default placement.
//!
//! Output: a human table on stderr (after per-run progress lines) and ONE
//! JSON document as the last stdout line (`cargo xtask bench flash` reads
//! it). Needs root (namespaces, XDP); otherwise prints `{"skipped": ...}`
//! and exits 0. Options: `--quick` (1 repeat, shorter windows),
//! `--repeats N`, `--never-busy` (chains under test never busy-poll),
//! `--no-coalesce` (wake downstream NFs on every enqueue: the runtime
//! without wakeup coalescing),
//! `--nf-batch N` (NF host batch size, default 64), `--wake-batch N`
//! (queued entries that wake a sleeping NF, default 32),
//! `--busy-when-shared` (NF hosts sharing a CPU busy-poll anyway, the
//! runtime's earlier default), `--no-batch-sched` (NF hosts sharing a CPU
//! stay SCHED_OTHER: woken NFs preempt), `--placements default,no-pin,per-nf`
//! (a subset; `--no-pin` = `--placements no-pin`), `--closed-loop-only`,
//! `--lengths 1,8` and `--modes
//! zero-copy,threads` (a subset), `--rx-coalesce-us N` (receive
//! moderation of the first NF, 0 = off), `--throughput-only` (skip backpressure
//! and idle), `--pin-generator`
//! (throughput runs: generator/sink alone on CPU 0, chain on the rest).
//! Without `--bench` (which `cargo bench` passes) it assumes
//! `cargo test` mode and skips. With `NFC_BENCH_OUT` set (by `cargo xtask
//! bench`) the JSON is also written to `$NFC_BENCH_OUT/flash_chain.json`.
//! Internal: `__threads <deployment>` hosts every NF as a thread.

#[path = "../tests/netns_common/mod.rs"]
mod netns_common;

use flash_rt::deploy::{
    Deployment, Endpoint, GroupSpec, InterfaceSpec, LinkMode, LinkSpec, MonitorConfig, NfSpec,
    Placement, PollingConfig, XdpMode,
};
use flash_rt::host::now_ns;
use flash_rt::xdp::loadgen::{ClosedLoop, LoadGen, LoadGenConfig};
use netns_common::{
    disable_ipv6, in_netns, ip, nf_macs, open_tempdir, spawn_nf_host, spawn_ready, stderr_of, tag,
    NetNs, Proc, BIN, ETHERTYPE,
};
use serde_json::{json, Value};
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const NOBODY: u32 = 65534;
/// Packets per NF host batch (`monitor.batch_size`; `--nf-batch N`).
static NF_BATCH: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(64);

/// One backpressure run: delivered kpps, chain CPU %, CPU % per process.
type BpRun = (f64, f64, Vec<f64>);

/// Short name of a placement in the tables: what `nfc run` does by default,
/// `--pin never`, `--pin always`.
fn placement_name(p: Placement) -> &'static str {
    match p {
        Placement::Auto => "default",
        Placement::Never => "no-pin",
        Placement::Always => "per-nf",
    }
}
/// Frames in flight at most (closed loop).
const WINDOW: u64 = 1024;
/// Frames per generator send batch.
const BATCH: usize = 64;
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
        disable_ipv6(&dut.name);
        disable_ipv6(&peer.name);
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
    placement: Placement,
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
                cpus: vec![],
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
    let mut dep = Deployment {
        version: 1,
        name: format!("bench-{}-{k}", mode.name()),
        monitor: MonitorConfig {
            socket: sock.to_path_buf(),
            interfaces,
            xdp_mode: XdpMode::Auto,
            frame_size: 2048,
            ring_size: 2048,
            inbox_size: 1024,
            batch_size: NF_BATCH.load(std::sync::atomic::Ordering::Relaxed),
        },
        nfs,
        links,
        groups,
    };
    // Exactly what `nfc run` hands its hosts (`--pinning`) for this
    // placement over the CPUs this process may use.
    if let Some(cpus) = placement.cpus_for(&dep, &flash_rt::host::allowed_cpus()) {
        for (nf, c) in dep.nfs.iter_mut().zip(cpus) {
            nf.cpus = vec![c];
        }
    }
    dep
}

/// A running chain: namespaces, monitor, NF host processes.
struct Running {
    hosts: Vec<Proc>,
    monitor: Proc,
    net: Net,
    dep: PathBuf,
    _dir: tempfile::TempDir,
}

/// Kernel counters of the chain's ingress socket (nf0's RX socket on `in`).
#[derive(Default, Clone, Copy)]
struct Ingress {
    /// Frames the kernel dropped at the socket: no free frame (fill ring
    /// empty) or RX ring full.
    dropped: u64,
    /// Of which, descriptors the fill ring lacked.
    fill_empty: u64,
}

impl Ingress {
    fn since(self, before: Ingress) -> Ingress {
        Ingress {
            dropped: self.dropped.saturating_sub(before.dropped),
            fill_empty: self.fill_empty.saturating_sub(before.fill_empty),
        }
    }
}

impl Running {
    /// The ingress socket's kernel counters (zero when stats are unavailable).
    fn ingress(&self) -> Ingress {
        let Ok(out) = Command::new(BIN).arg("stats").arg(&self.dep).output() else {
            return Ingress::default();
        };
        let Ok(st) = serde_json::from_slice::<Value>(&out.stdout) else {
            return Ingress::default();
        };
        let mut i = Ingress::default();
        for s in st["sockets"].as_array().into_iter().flatten() {
            if s["nf"] == "nf0" && s["iface"] == "in" && s["rx"] == true {
                let k = &s["kernel"];
                let get = |n: &str| k[n].as_u64().unwrap_or(0);
                i.dropped += get("rx_dropped") + get("rx_ring_full");
                i.fill_empty += get("rx_fill_ring_empty_descs");
            }
        }
        i
    }

    fn start(
        mode: Mode,
        placement: Placement,
        objects: &[(PathBuf, Vec<(String, String)>)],
        polling: PollingConfig,
    ) -> Running {
        let k = objects.len();
        let net = Net::new(if mode == Mode::VethChain { k - 1 } else { 0 });
        let dir = open_tempdir();
        let dep = dir.path().join("deploy.json");
        std::fs::write(
            &dep,
            deployment(
                mode,
                placement,
                objects,
                polling,
                &dir.path().join("mon.sock"),
            )
            .to_json(),
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
            hosts.extend((0..k).map(|i| spawn_nf_host(&dep, &format!("nf{i}"))));
        }
        Running {
            hosts,
            monitor,
            net,
            dep,
            _dir: dir,
        }
    }

    fn pids(&self) -> Vec<u32> {
        std::iter::once(&self.monitor)
            .chain(&self.hosts)
            .map(|p| p.child.id())
            .collect()
    }

    /// Generator on the peer's ingress end, sink on its egress end.
    fn loadgen(&self) -> LoadGen {
        loadgen(&self.net.peer.name, "vi0", "vo0")
    }

    /// Per-packet wakeup/syscall counters of the NF hosts (from the
    /// monitor's stats), summed over NFs and divided by `packets`.
    fn wakeup_stats(&self, packets: u64) -> Value {
        let out = Command::new(BIN)
            .arg("stats")
            .arg(self.dep.as_path())
            .output();
        let Ok(out) = out else { return Value::Null };
        let Ok(st) = serde_json::from_slice::<Value>(&out.stdout) else {
            return Value::Null;
        };
        let sum = |name: &str| -> u64 {
            st["nfs"]
                .as_array()
                .map(|a| a.iter().filter_map(|n| n["counters"][name].as_u64()).sum())
                .unwrap_or(0)
        };
        let per = |name: &str| round3(sum(name) as f64 / packets.max(1) as f64);
        // Packets per batch and sleeps per 1000 packets of each NF, in
        // deployment order: where in the chain batches shrink.
        let per_nf: Vec<Value> = st["nfs"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|n| {
                        let c = |k: &str| n["counters"][k].as_u64().unwrap_or(0) as f64;
                        json!({
                            "pkts_per_batch": round(c("batch_packets") / c("batches").max(1.0)),
                            "sleeps_per_kpkt": round(c("sleeps") * 1e3 / packets.max(1) as f64),
                            "batch_waits_per_kpkt": round(c("batch_waits") * 1e3 / packets.max(1) as f64),
                            "rx_timer_sleeps_per_kpkt": round(c("rx_moderated_sleeps") * 1e3 / packets.max(1) as f64),
                            "contention_backoffs": c("contention_backoffs"),
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();
        json!({
            "per_nf": per_nf,
            "sleeps": per("sleeps"), "wakeups_sent": per("wakeups_sent"),
            "tx_kicks": per("tx_kicks"), "batches": per("batches"),
            "throttle_sleeps": per("throttle_sleeps"),
            "batch_waits": per("batch_waits"), "wakeups_deferred": per("wakeups_deferred"),
        })
    }
}

/// The frame every generator run transmits: test MACs, the bench
/// ethertype, room for sequence number and timestamp; 64 bytes.
fn template() -> Vec<u8> {
    let mut f = vec![0u8; FRAME_LEN];
    f[0..6].copy_from_slice(&netns_common::DST_MAC);
    f[6..12].copy_from_slice(&netns_common::SRC_MAC);
    f[12..14].copy_from_slice(&ETHERTYPE.to_be_bytes());
    f
}

/// An AF_XDP generator on `tx_if` and sink on `rx_if` in namespace `ns`.
fn loadgen(ns: &str, tx_if: &'static str, rx_if: &'static str) -> LoadGen {
    in_netns(ns, move || {
        LoadGen::new(tx_if, rx_if, &template(), &LoadGenConfig::default())
            .unwrap_or_else(|e| panic!("load generator {tx_if} -> {rx_if}: {e}"))
    })
}

/// Closed-loop result of one run.
struct Load {
    kpps: f64,
    lost: u64,
    /// Frames received over the whole call (warm-up included).
    received: u64,
    /// Latency under load (send to sink), µs: p50, p99.
    loaded_us: (f64, f64),
    /// CPU seconds per process over the measured window.
    cpu: CpuSplit,
}

/// Where CPU went during a measurement (seconds of utime+stime).
#[derive(Default, Clone, Copy)]
struct CpuSplit {
    generator: f64,
    monitor: f64,
    nfs: f64,
    wall: f64,
}

impl CpuSplit {
    fn pct(v: f64, wall: f64) -> f64 {
        v / wall.max(1e-9) * 100.0
    }
    fn describe(&self) -> String {
        format!(
            "cpu gen {:>3.0}% mon {:>2.0}% nfs {:>3.0}%",
            Self::pct(self.generator, self.wall),
            Self::pct(self.monitor, self.wall),
            Self::pct(self.nfs, self.wall)
        )
    }
}

/// Per-process CPU snapshot: (bench/generator, monitor, NF hosts), ticks.
fn cpu_snapshot(chain: &[u32]) -> (u64, u64, u64) {
    let me = cpu_ticks(&[std::process::id()]);
    let mon = chain.first().map(|p| cpu_ticks(&[*p])).unwrap_or(0);
    let nfs = cpu_ticks(chain.get(1..).unwrap_or(&[]));
    (me, mon, nfs)
}

fn cpu_since(chain: &[u32], s0: (u64, u64, u64), t0: u64) -> CpuSplit {
    let s1 = cpu_snapshot(chain);
    let t = clk_tck();
    CpuSplit {
        generator: (s1.0 - s0.0) as f64 / t,
        monitor: (s1.1 - s0.1) as f64 / t,
        nfs: (s1.2 - s0.2) as f64 / t,
        wall: (now_ns() - t0) as f64 / 1e9,
    }
}

fn quantiles_us(lat: &mut [u64]) -> (f64, f64) {
    if lat.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    lat.sort_unstable();
    let q = |f: f64| lat[((lat.len() - 1) as f64 * f) as usize] as f64 / 1e3;
    (q(0.5), q(0.99))
}

/// Closed-loop throughput over `secs` (after `warm` seconds of warm-up):
/// [`ClosedLoop`], the one closed loop of the benches and `nfc profile` —
/// at most `WINDOW` frames in flight, each known by its stamped sequence
/// number; when the window is full the generator blocks in poll() on the
/// sink socket (so it does not steal a core from the chain), and a frame
/// still missing once frames sent after it came back (RACK-style) counts
/// as lost and frees its slot (counting in flight as sent − received
/// instead lets every dropped frame hold a slot for good while others keep
/// returning).
fn throughput(g: &mut LoadGen, chain: &[u32], warm: f64, secs: f64) -> Load {
    assert!(g.identifies_frames(), "closed loop needs stamped frames");
    let mut lat = Vec::with_capacity(1 << 20);
    let mut cl = ClosedLoop::new(WINDOW, ClosedLoop::TIMEOUT_NS);
    let (got0, lost0) = (g.received, cl.lost);
    cl.run_for(g, warm, None);
    let s0 = cpu_snapshot(chain);
    let w = cl.run_for(g, secs, Some(&mut lat));
    let cpu = cpu_since(chain, s0, now_ns() - (w.secs * 1e9) as u64);
    // Drain what is still in flight so the next measurement starts clean.
    while g.wait_rx(20) {
        cl.recv(g, usize::MAX, None);
    }
    Load {
        kpps: w.delivered_pps() / 1e3,
        lost: cl.lost - lost0,
        received: g.received - got0,
        loaded_us: quantiles_us(&mut lat),
        cpu,
    }
}

/// Open loop at the generator's full rate for `secs` (after `warm`): the
/// generator sends whenever its TX ring has room, never waiting for the
/// chain, as an independent traffic source does; frames the chain cannot
/// take are dropped at its ingress socket. Returns (delivered kpps,
/// offered kpps, ingress drops over the window).
fn open_loop(g: &mut LoadGen, run: Option<&Running>, warm: f64, secs: f64) -> (f64, f64, Ingress) {
    let ingress = || run.map(Running::ingress).unwrap_or_default();
    let start = now_ns();
    let t_warm = start + (warm * 1e9) as u64;
    let t_end = t_warm + (secs * 1e9) as u64;
    let mut at_warm: Option<(u64, u64, u64, Ingress)> = None;
    loop {
        let now = now_ns();
        if now >= t_end {
            break;
        }
        if at_warm.is_none() && now >= t_warm {
            at_warm = Some((g.received, g.sent, now, ingress()));
        }
        g.send(4 * BATCH, now);
        g.recv(usize::MAX, now, None);
    }
    let (r0, s0, t0, i0) = at_warm.unwrap_or((0, 0, start, Ingress::default()));
    let dt = (now_ns() - t0) as f64 / 1e9;
    let delivered = (g.received - r0) as f64 / dt / 1e3;
    let offered = (g.sent - s0) as f64 / dt / 1e3;
    let drops = ingress().since(i0);
    while g.wait_rx(20) {
        g.recv(usize::MAX, now_ns(), None);
    }
    (delivered, offered, drops)
}

/// Round-trip latency of `n` single frames through an idle chain (µs):
/// (median, p99).
fn latency(g: &mut LoadGen, n: usize) -> (f64, f64) {
    let mut lat = vec![];
    for _ in 0..n {
        g.send(1, now_ns());
        let before = lat.len();
        while lat.len() == before && g.wait_rx(200) {
            g.recv(1, now_ns(), Some(&mut lat));
        }
    }
    quantiles_us(&mut lat)
}

/// Open-loop load at `rate_pps` for `secs` (after 0.3 s of warm-up);
/// `on_window(true|false)` marks the measured window. Returns delivered kpps.
fn paced(g: &mut LoadGen, rate_pps: f64, secs: f64, on_window: &mut dyn FnMut(bool)) -> f64 {
    const PACE_BATCH: usize = 16;
    let gap = (PACE_BATCH as f64 / rate_pps * 1e9) as u64;
    let start = now_ns();
    let warm = start + 300_000_000;
    let end = warm + (secs * 1e9) as u64;
    let (mut next, mut got) = (start, 0u64);
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
            g.send(PACE_BATCH, now);
            next += gap;
        } else if g.tx_backlog() > 0 {
            g.kick();
        }
        got += g.recv(usize::MAX, now, None) as u64;
        if now < next {
            std::thread::sleep(Duration::from_nanos((next - now).min(200_000)));
        }
    }
    on_window(false);
    let (g0, t0) = at_warm.unwrap_or((0, start));
    (got - g0) as f64 / ((now_ns() - t0) as f64 / 1e9) / 1e3
}

/// Pin process/thread `pid` (0 = the calling thread) to the CPUs in `cpus`.
fn pin(pid: u32, cpus: &[usize]) {
    // SAFETY: zeroed cpu_set_t is valid; CPU_SET on in-range indices.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &c in cpus {
            libc::CPU_SET(c, &mut set);
        }
        libc::sched_setaffinity(pid as i32, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}

/// Every thread of process `pid`.
fn threads_of(pid: u32) -> Vec<u32> {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .map(|d| {
            d.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
                .collect()
        })
        .unwrap_or_default()
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

/// (min, max) of the finite values (NaN, NaN when there are none).
fn range(v: &[f64]) -> (f64, f64) {
    let f: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    if f.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    (
        f.iter().copied().fold(f64::INFINITY, f64::min),
        f.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    )
}

fn median(v: &[f64]) -> f64 {
    let mut s: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    if s.is_empty() {
        return f64::NAN;
    }
    s.sort_by(|a, b| a.partial_cmp(b).unwrap());
    s[s.len() / 2]
}

fn round3(x: f64) -> Value {
    if x.is_finite() {
        json!((x * 1000.0).round() / 1000.0)
    } else {
        Value::Null
    }
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
    // `--never-busy`: chains under test never busy-poll (sleep in poll()
    // whenever idle), to compare against the default smart polling.
    // `--no-coalesce`: wake downstream NFs on every enqueue (the runtime
    // before wakeup coalescing), for A/B runs.
    let no_coalesce = args.iter().any(|a| a == "--no-coalesce");
    let num_arg = |name: &str| -> Option<u32> {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
    };
    // `--placements default,no-pin,per-nf` (all three by default) for the
    // link modes; `--no-pin` alone is `--placements no-pin`.
    // `--closed-loop-only` skips the open-loop runs.
    let mut placements: Vec<Placement> = args
        .iter()
        .position(|a| a == "--placements")
        .and_then(|i| args.get(i + 1))
        .map(|v| {
            [Placement::Auto, Placement::Never, Placement::Always]
                .into_iter()
                .filter(|p| v.split(',').any(|x| x == placement_name(*p)))
                .collect()
        })
        .unwrap_or_else(|| vec![Placement::Auto, Placement::Never, Placement::Always]);
    if args.iter().any(|a| a == "--no-pin") {
        placements = vec![Placement::Never];
    }
    let open_loop_runs = !args.iter().any(|a| a == "--closed-loop-only");
    if let Some(b) = num_arg("--nf-batch") {
        NF_BATCH.store(b, std::sync::atomic::Ordering::Relaxed);
    }
    let chain_polling = PollingConfig {
        never_busy: args.iter().any(|a| a == "--never-busy"),
        wake_batch: if no_coalesce {
            1
        } else {
            num_arg("--wake-batch").unwrap_or(PollingConfig::default().wake_batch)
        },
        busy_when_shared: no_coalesce || args.iter().any(|a| a == "--busy-when-shared"),
        batch_sched_when_shared: !args.iter().any(|a| a == "--no-batch-sched"),
        rx_coalesce_us: num_arg("--rx-coalesce-us")
            .map_or(PollingConfig::default().rx_coalesce_us, u64::from),
        ..PollingConfig::default()
    };
    // `--lengths 1,8` / `--modes zero-copy,threads`: a subset for A/B
    // experiments (ratios whose operands were not run print as NaN).
    let list_arg = |name: &str| -> Option<Vec<String>> {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .map(|v| v.split(',').map(str::to_string).collect())
    };
    let lengths: Vec<usize> = list_arg("--lengths")
        .map(|v| v.iter().filter_map(|x| x.parse().ok()).collect())
        .unwrap_or_else(|| vec![1, 2, 4, 8]);
    let modes: Vec<Mode> = list_arg("--modes")
        .map(|v| {
            Mode::ALL
                .into_iter()
                .filter(|m| v.iter().any(|x| x == m.name()))
                .collect()
        })
        .unwrap_or_else(|| Mode::ALL.to_vec());
    let t_start = std::time::Instant::now();
    let ncpu = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let all_cpus: Vec<usize> = (0..ncpu).collect();
    let load_before = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    // `--pin-generator`: throughput runs put the generator/sink thread alone
    // on CPU 0 and the chain (monitor, NF hosts) on the others, so the
    // traffic source does not compete with the chain (FLASH's generator is
    // separate hardware).
    let pin_generator = args.iter().any(|a| a == "--pin-generator");

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

    // The generator's own ceiling: a plain veth pair, no chain.
    let mut ceiling = vec![];
    let mut ceiling_open = vec![];
    for _ in 0..repeats {
        let ns = NetNs::new(format!("nfbl{}", tag()));
        ip(&[
            "-n", &ns.name, "link", "add", "lA", "type", "veth", "peer", "name", "lB",
        ]);
        ip(&["-n", &ns.name, "link", "set", "lA", "up"]);
        ip(&["-n", &ns.name, "link", "set", "lB", "up"]);
        let mut g = loadgen(&ns.name, "lA", "lB");
        let load = throughput(&mut g, &[], warm, secs);
        let (open, offered, _) = open_loop(&mut g, None, warm, secs);
        eprintln!(
            "flash_chain: generator ceiling (veth pair, no chain): closed loop {:>8.1} kpps, lost {}, {}; open loop {open:>8.1} kpps of {offered:.1} sent",
            load.kpps,
            load.lost,
            load.cpu.describe()
        );
        ceiling.push(load.kpps);
        ceiling_open.push(open);
        drop(g);
    }

    // Throughput and latency, interleaved repeats. Every configuration
    // (link mode x placement x chain length) runs once per repeat before
    // any runs again, so load from other jobs on the machine spreads over
    // all of them. The link modes run under every placement (`nfc run`'s
    // default, `--pin never`, `--pin always` = one CPU per NF where
    // possible, contiguous runs otherwise); the baselines under the default.
    let configs: Vec<(Mode, Placement)> = Mode::ALL
        .iter()
        .filter(|m| modes.contains(m))
        .flat_map(|&m| {
            let ps: Vec<Placement> = match m {
                Mode::ZeroCopy | Mode::SingleCopy => placements.clone(),
                _ => vec![Placement::Auto],
            };
            ps.into_iter().map(move |p| (m, p))
        })
        .collect();
    let n = (configs.len(), lengths.len());
    let mut kpps = vec![vec![Vec::<f64>::new(); n.1]; n.0];
    let mut open = vec![vec![Vec::<f64>::new(); n.1]; n.0];
    let mut offered = vec![vec![Vec::<f64>::new(); n.1]; n.0];
    let mut drops_pct = vec![vec![Vec::<f64>::new(); n.1]; n.0];
    let mut rtt = vec![vec![Vec::<(f64, f64)>::new(); n.1]; n.0];
    let mut loaded = vec![vec![Vec::<(f64, f64)>::new(); n.1]; n.0];
    let mut lost = vec![vec![0u64; n.1]; n.0];
    let mut cpu = vec![vec![Vec::<f64>::new(); n.1]; n.0];
    let mut split = vec![vec![Vec::<CpuSplit>::new(); n.1]; n.0];
    let mut stats_last: Vec<Vec<Value>> = vec![vec![Value::Null; n.1]; n.0];
    for rep in 0..repeats {
        for (li, &k) in lengths.iter().enumerate() {
            for (ci, &(mode, placement)) in configs.iter().enumerate() {
                let objects: Vec<(PathBuf, Vec<(String, String)>)> =
                    (0..k).map(|_| (l2fwd.clone(), vec![])).collect();
                let run = Running::start(mode, placement, &objects, chain_polling);
                let mut g = run.loadgen();
                let pids = run.pids();
                if pin_generator && ncpu > 1 {
                    for &p in &pids {
                        for t in threads_of(p) {
                            pin(t, &all_cpus[1..]);
                        }
                    }
                    pin(0, &all_cpus[..1]);
                }
                let load = throughput(&mut g, &pids, warm, secs);
                // Chain CPU (monitor + NF hosts) per forwarded frame, in µs.
                let cpu_us = (load.cpu.monitor + load.cpu.nfs) * 1e6
                    / (load.kpps * 1e3 * load.cpu.wall).max(1.0);
                let l = latency(&mut g, pings);
                let (ol, of, ing) = if open_loop_runs {
                    open_loop(&mut g, Some(&run), warm, secs)
                } else {
                    (f64::NAN, f64::NAN, Ingress::default())
                };
                let dropped = 100.0 * ing.dropped as f64 / (of * 1e3 * secs).max(1.0);
                eprintln!(
                    "flash_chain: rep {rep} {:<11} {:<7} k={k}: closed {:>8.1} kpps, {cpu_us:>6.2} CPU-us/frame, loaded p50 {:>7.1} us p99 {:>7.1}, rtt p50 {:>6.1} us p99 {:>7.1}, lost {}, {}; open {ol:>8.1} kpps of {of:.1}, ingress drops {dropped:.1}% (fill ring empty {})",
                    mode.name(),
                    placement_name(placement),
                    load.kpps,
                    load.loaded_us.0,
                    load.loaded_us.1,
                    l.0,
                    l.1,
                    load.lost,
                    load.cpu.describe(),
                    ing.fill_empty
                );
                if pin_generator {
                    pin(0, &all_cpus);
                }
                kpps[ci][li].push(load.kpps);
                open[ci][li].push(ol);
                offered[ci][li].push(of);
                drops_pct[ci][li].push(dropped);
                cpu[ci][li].push(cpu_us);
                rtt[ci][li].push(l);
                loaded[ci][li].push(load.loaded_us);
                lost[ci][li] += load.lost;
                split[ci][li].push(load.cpu);
                if mode != Mode::Threads {
                    stats_last[ci][li] = run.wakeup_stats(load.received);
                }
                drop(g);
                drop(run);
            }
        }
    }
    let ceil_closed = median(&ceiling);
    let ceil_open = median(&ceiling_open);
    // A figure within 10% of the generator's own ceiling (same load
    // method, plain veth pair) says more about the generator than the chain.
    let at_ceiling = |v: f64, ceil: f64| v.is_finite() && ceil.is_finite() && v >= 0.9 * ceil;
    let mut results = vec![];
    let mut table = vec![];
    for (ci, &(mode, placement)) in configs.iter().enumerate() {
        for (li, &k) in lengths.iter().enumerate() {
            let col = |v: &Vec<(f64, f64)>, f: fn(&(f64, f64)) -> f64| {
                median(&v.iter().map(f).collect::<Vec<_>>())
            };
            let (r50, r99) = (col(&rtt[ci][li], |l| l.0), col(&rtt[ci][li], |l| l.1));
            let (l50, l99) = (col(&loaded[ci][li], |l| l.0), col(&loaded[ci][li], |l| l.1));
            let sp = &split[ci][li];
            let pct = |f: fn(&CpuSplit) -> f64| {
                median(
                    &sp.iter()
                        .map(|s| CpuSplit::pct(f(s), s.wall))
                        .collect::<Vec<_>>(),
                )
            };
            let (gen_pct, mon_pct, nfs_pct) =
                (pct(|s| s.generator), pct(|s| s.monitor), pct(|s| s.nfs));
            let mk = median(&kpps[ci][li]);
            let mo = median(&open[ci][li]);
            let (lo, hi) = range(&kpps[ci][li]);
            let (olo, ohi) = range(&open[ci][li]);
            let flag = |v: f64, c: f64| if at_ceiling(v, c) { "*" } else { " " };
            table.push(format!(
                "{:<11} {:<7} {k:>2}  {:>6.3}{} [{:.3}-{:.3}]  {:>6.3}{} [{:.3}-{:.3}] {:>5.1}%  {:>7.1} {:>8.1}  {:>6.1} {:>7.1}  {:>6.2}  {:>4.0}/{:>3.0}/{:>4.0}  {:>5}",
                mode.name(),
                placement_name(placement),
                mk / 1e3,
                flag(mk, ceil_closed),
                lo / 1e3,
                hi / 1e3,
                mo / 1e3,
                flag(mo, ceil_open),
                olo / 1e3,
                ohi / 1e3,
                median(&drops_pct[ci][li]),
                l50,
                l99,
                r50,
                r99,
                median(&cpu[ci][li]),
                gen_pct,
                mon_pct,
                nfs_pct,
                lost[ci][li]
            ));
            results.push(json!({
                "mode": mode.name(), "placement": placement_name(placement), "nfs": k,
                "kpps": kpps[ci][li].iter().map(|x| round(*x)).collect::<Vec<_>>(),
                "median_kpps": round(mk),
                "median_mpps": round3(mk / 1e3),
                "at_generator_ceiling": at_ceiling(mk, ceil_closed),
                "open_loop": {
                    "kpps": open[ci][li].iter().map(|x| round(*x)).collect::<Vec<_>>(),
                    "median_kpps": round(mo),
                    "offered_kpps": round(median(&offered[ci][li])),
                    "ingress_drop_pct": round(median(&drops_pct[ci][li])),
                    "ingress_drop_pct_runs": drops_pct[ci][li].iter().map(|x| round(*x)).collect::<Vec<_>>(),
                    "at_generator_ceiling": at_ceiling(mo, ceil_open),
                },
                "cpu_us_per_frame": round(median(&cpu[ci][li])),
                "cpu_pct": {"generator": round(gen_pct), "monitor": round(mon_pct), "nf_hosts": round(nfs_pct)},
                "loaded_latency_us_p50": round(l50), "loaded_latency_us_p99": round(l99),
                "rtt_us_p50": round(r50), "rtt_us_p99": round(r99),
                "lost_frames": lost[ci][li],
                "per_packet_last_run": stats_last[ci][li].clone(),
            }));
        }
    }
    // Ratios of medians within this run.
    let cell = |v: &Vec<Vec<Vec<f64>>>, m: Mode, p: Placement, k: usize| -> Vec<f64> {
        let ci = configs.iter().position(|c| *c == (m, p));
        let li = lengths.iter().position(|x| *x == k);
        match (ci, li) {
            (Some(ci), Some(li)) => v[ci][li].clone(),
            _ => vec![],
        }
    };
    let at = |m: Mode, k: usize| median(&cell(&kpps, m, Placement::Auto, k));
    let at_open = |m: Mode, k: usize| median(&cell(&open, m, Placement::Auto, k));
    let ratio_rows = [
        (
            "zc8/zc1",
            at(Mode::ZeroCopy, 8) / at(Mode::ZeroCopy, 1),
            Some(0.8),
        ),
        (
            "zc8/zc1 open loop",
            at_open(Mode::ZeroCopy, 8) / at_open(Mode::ZeroCopy, 1),
            Some(0.8),
        ),
        (
            "zc8/veth8",
            at(Mode::ZeroCopy, 8) / at(Mode::VethChain, 8),
            Some(2.0),
        ),
        (
            "sc8/veth8",
            at(Mode::SingleCopy, 8) / at(Mode::VethChain, 8),
            None,
        ),
        (
            "threads8/zc8",
            at(Mode::Threads, 8) / at(Mode::ZeroCopy, 8),
            None,
        ),
        (
            "sc8/sc1",
            at(Mode::SingleCopy, 8) / at(Mode::SingleCopy, 1),
            None,
        ),
        ("zc1/generator", at(Mode::ZeroCopy, 1) / ceil_closed, None),
    ];
    let mut ratios = serde_json::Map::new();
    for (name, v, target) in &ratio_rows {
        ratios.insert(
            name.to_string(),
            json!({"value": round(*v), "target_min": target, "met": target.map(|t| *v >= t)}),
        );
    }
    // The default placement against `--pin never` (and `--pin always`), per
    // link mode and chain length, both load methods. Noise is the
    // run-to-run spread measured here: half the range of each
    // configuration's repeats, added for the two compared; "ok" when the
    // default's median is not below the other's by more than that.
    let mut versus = vec![];
    let mut versus_rows = vec![];
    for m in [Mode::ZeroCopy, Mode::SingleCopy] {
        if !modes.contains(&m) {
            continue;
        }
        for &k in &lengths {
            for (metric, data) in [("closed", &kpps), ("open", &open)] {
                let d = cell(data, m, Placement::Auto, k);
                let mut row = json!({"mode": m.name(), "nfs": k, "load": metric});
                let mut line = format!("{:<11} {k:>2} {metric:<6}", m.name());
                for other in [Placement::Never, Placement::Always] {
                    let o = cell(data, m, other, k);
                    if o.is_empty() || d.is_empty() || !median(&o).is_finite() {
                        continue;
                    }
                    let half = |v: &[f64]| {
                        let (lo, hi) = range(v);
                        (hi - lo) / 2.0
                    };
                    let noise = half(&d) + half(&o);
                    let diff = median(&d) - median(&o);
                    let ok = diff >= -noise;
                    row[placement_name(other)] = json!({
                        "default_kpps": round(median(&d)), "other_kpps": round(median(&o)),
                        "ratio": round3(median(&d) / median(&o)), "noise_kpps": round(noise),
                        "default_not_below_beyond_noise": ok,
                    });
                    line += &format!(
                        "  vs {:<6} {:>6.3}/{:<6.3} = {:>5.3} (noise ±{:.3}){}",
                        placement_name(other),
                        median(&d) / 1e3,
                        median(&o) / 1e3,
                        median(&d) / median(&o),
                        noise / 1e3,
                        if ok { "" } else { " BELOW" }
                    );
                }
                versus.push(row);
                versus_rows.push(line);
            }
        }
    }

    // Backpressure: l2fwd -> l2fwd -> slow_fwd, offered 3x what slow_fwd
    // takes, open loop; total CPU of the monitor and NF hosts under smart
    // polling (FLASH §4.4: sleep when idle, throttle on a full downstream
    // ring) vs busy polling everywhere, both throughputs shown. Two
    // setups, interleaved: `default` is what `nfc run` does with this
    // 3-NF chain on this machine (its default placement, nothing pinned
    // by hand); `pinned` puts the slow NF alone on the last CPU and the
    // rest (generator, monitor, upstream NFs) on the others, so both
    // policies are limited by the same NF (equal throughput) and the CPU
    // difference is what the upstream NFs burn waiting.
    let spin_ns = 40_000u64;
    let offered = 3.0 * 1e9 / spin_ns as f64;
    let busy = PollingConfig {
        busy_threshold_pps: 0,
        busy_timeout_us: 3_600_000_000,
        throttle_us: 0,
        busy_when_shared: true,
        ..PollingConfig::default()
    };
    let (slow_cpu, rest_cpus): (Vec<usize>, Vec<usize>) = if ncpu > 1 {
        (vec![ncpu - 1], (0..ncpu - 1).collect())
    } else {
        (vec![0], vec![0])
    };
    let mut bp = serde_json::Map::new();
    let mut bp_rows = vec![];
    // `--throughput-only` skips the backpressure and idle sections.
    let extras = !args.iter().any(|a| a == "--throughput-only");
    let policies = [("smart", PollingConfig::default()), ("busy", busy)];
    let policies = if extras { &policies[..] } else { &[] };
    let setups = [("default", false), ("pinned", true)];
    let objects = vec![
        (l2fwd.clone(), vec![]),
        (l2fwd.clone(), vec![]),
        (
            slow.clone(),
            vec![("spin_ns".to_string(), spin_ns.to_string())],
        ),
    ];
    // (setup, policy) -> runs of (delivered kpps, chain CPU %, per process %).
    let mut bp_runs: Vec<Vec<Vec<BpRun>>> = vec![vec![vec![]; policies.len()]; setups.len()];
    for _ in 0..repeats {
        for (si, &(setup, by_hand)) in setups.iter().enumerate() {
            for (pi, &(name, polling)) in policies.iter().enumerate() {
                let run = Running::start(Mode::ZeroCopy, Placement::Auto, &objects, polling);
                let mut g = run.loadgen();
                let pids = run.pids();
                if by_hand {
                    // pids: monitor, nf0, nf1, nf2 (slow).
                    for (i, &p) in pids.iter().enumerate() {
                        let cpus = if i == 3 { &slow_cpu } else { &rest_cpus };
                        for t in threads_of(p) {
                            pin(t, cpus);
                        }
                    }
                    pin(0, &rest_cpus);
                }
                let mut mark = (vec![], 0u64);
                let mut cpu_pct = 0.0;
                let mut per_nf = vec![];
                let rate = paced(&mut g, offered, secs * 1.5, &mut |start| {
                    let ticks: Vec<u64> = pids.iter().map(|p| cpu_ticks(&[*p])).collect();
                    if start {
                        mark = (ticks, now_ns());
                    } else {
                        let dt = (now_ns() - mark.1) as f64 / 1e9;
                        per_nf = ticks
                            .iter()
                            .zip(&mark.0)
                            .map(|(a, b)| (a - b) as f64 / clk_tck() / dt * 100.0)
                            .collect();
                        cpu_pct = per_nf.iter().sum();
                    }
                });
                pin(0, &all_cpus);
                eprintln!(
                    "flash_chain: backpressure {setup:<7} {name:<5}: {rate:>6.1} kpps delivered of {:.1} offered, chain CPU {cpu_pct:>4.0}% (monitor/nf0/nf1/slow: {})",
                    offered / 1e3,
                    per_nf.iter().map(|p| format!("{p:.0}%")).collect::<Vec<_>>().join("/")
                );
                bp_runs[si][pi].push((rate, cpu_pct, per_nf));
                drop(g);
                drop(run);
            }
        }
    }
    let nan = f64::NAN;
    for (si, &(setup, _)) in setups.iter().enumerate() {
        let mut section = serde_json::Map::new();
        let mut med = vec![];
        for (pi, &(name, _)) in policies.iter().enumerate() {
            let runs = &bp_runs[si][pi];
            let rates: Vec<f64> = runs.iter().map(|r| r.0).collect();
            let cpus: Vec<f64> = runs.iter().map(|r| r.1).collect();
            let (mr, mc) = (median(&rates), median(&cpus));
            med.push((mr, mc));
            let per_proc: Vec<Value> = (0..4)
                .map(|i| {
                    round(median(
                        &runs
                            .iter()
                            .filter_map(|r| r.2.get(i).copied())
                            .collect::<Vec<_>>(),
                    ))
                })
                .collect();
            bp_rows.push(format!(
                "{setup:<7} {name:<6} {mr:>8.1} kpps  chain CPU {mc:>5.0}% [{:.0}-{:.0}]  (monitor/nf0/nf1/slow: {})",
                range(&cpus).0,
                range(&cpus).1,
                per_proc
                    .iter()
                    .map(|v| format!("{v}%"))
                    .collect::<Vec<_>>()
                    .join("/")
            ));
            section.insert(
                name.to_string(),
                json!({
                    "delivered_kpps": round(mr),
                    "delivered_kpps_runs": rates.iter().map(|x| round(*x)).collect::<Vec<_>>(),
                    "cpu_pct": round(mc),
                    "cpu_pct_runs": cpus.iter().map(|x| round(*x)).collect::<Vec<_>>(),
                    "cpu_pct_per_process": {"monitor": per_proc[0], "nf0": per_proc[1], "nf1": per_proc[2], "slow": per_proc[3]},
                }),
            );
        }
        let (smart, busy) = (
            med.first().copied().unwrap_or((nan, nan)),
            med.get(1).copied().unwrap_or((nan, nan)),
        );
        let cpu_drop = 1.0 - smart.1 / busy.1;
        let rate_ratio = smart.0 / busy.0;
        section.insert("throughput_smart_over_busy".into(), round3(rate_ratio));
        section.insert(
            "cpu_drop_smart_vs_busy".into(),
            json!({"value": round3(cpu_drop), "target_min": 0.4, "met": cpu_drop >= 0.4,
                   "equal_throughput": (rate_ratio - 1.0).abs() <= 0.05}),
        );
        bp_rows.push(format!(
            "{setup:<7} CPU drop smart vs busy: {:.0}% (target >= 40%), throughput smart/busy {:.3}",
            cpu_drop * 100.0,
            rate_ratio
        ));
        bp.insert(setup.to_string(), Value::Object(section));
    }
    bp.insert("offered_kpps".into(), round(offered / 1e3));
    bp.insert("slow_nf_spin_ns".into(), json!(spin_ns));

    // Idle: a 4-NF zero-copy chain with no traffic.
    let mut idle = serde_json::Map::new();
    for &(name, polling) in policies {
        let objects: Vec<(PathBuf, Vec<(String, String)>)> =
            (0..4).map(|_| (l2fwd.clone(), vec![])).collect();
        let run = Running::start(Mode::ZeroCopy, Placement::Auto, &objects, polling);
        let mut g = run.loadgen();
        // A short burst first, so busy pollers have switched to busy mode.
        let _ = throughput(&mut g, &[], 0.0, 0.1);
        let pids = run.pids();
        let (c0, t0) = (cpu_ticks(&pids), now_ns());
        std::thread::sleep(Duration::from_secs_f64(secs));
        let pct =
            (cpu_ticks(&pids) - c0) as f64 / clk_tck() / ((now_ns() - t0) as f64 / 1e9) * 100.0;
        eprintln!("flash_chain: idle 4-NF chain, {name} polling: {pct:.1}% CPU");
        idle.insert(format!("cpu_pct_{name}"), round(pct));
        drop(g);
    }
    idle.insert("nfs".into(), json!(4));

    // The human table.
    eprintln!();
    eprintln!(
        "flash_chain: {} repeat(s), medians; load average before: {}",
        repeats,
        load_before.trim()
    );
    let load_after = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    eprintln!("load average after: {}", load_after.trim());
    eprintln!(
        "generator ceiling (plain veth pair): closed loop {:.3} Mpps, open loop {:.3} Mpps; * marks a median within 10% of it (the generator, not the chain, limits that figure)",
        ceil_closed / 1e3,
        ceil_open / 1e3
    );
    eprintln!("placements: default = nfc run's (a CPU per NF host when CPUs outnumber hosts, else none), no-pin = --pin never, per-nf = --pin always (a CPU per NF, contiguous runs when NFs outnumber CPUs)");
    eprintln!("mode        pin     NFs  closed Mpps [min-max]    open Mpps [min-max]   ingress-drop  loaded-us p50/p99   rtt-us p50/p99  CPUus/f  gen/mon/nfs %   lost");
    for row in &table {
        eprintln!("{row}");
    }
    eprintln!(
        "default vs the others (medians, Mpps; noise = half the range of each's repeats, summed):"
    );
    for row in &versus_rows {
        eprintln!("  {row}");
    }
    for (name, v, target) in &ratio_rows {
        let t = target.map(|t| {
            format!(
                " (target >= {t}: {})",
                if *v >= t { "met" } else { "NOT met" }
            )
        });
        eprintln!("{name:<14} {v:>6.2}{}", t.unwrap_or_default());
    }
    eprintln!(
        "backpressure (3-NF chain, slow last NF {spin_ns} ns/pkt, offered {:.0} kpps):",
        offered / 1e3
    );
    for row in &bp_rows {
        eprintln!("  {row}");
    }
    eprintln!(
        "idle 4-NF chain CPU: smart {}%, busy {}%",
        idle.get("cpu_pct_smart").cloned().unwrap_or(Value::Null),
        idle.get("cpu_pct_busy").cloned().unwrap_or(Value::Null)
    );

    let doc = json!({
        "bench": "flash_chain",
        "machine": {"cpus": ncpu, "clk_tck": clk_tck(), "loadavg_before": load_before.trim(), "loadavg_after": load_after.trim()},
        "repeats": repeats,
        "frame_bytes": FRAME_LEN,
        "window_frames": WINDOW,
        "batch_frames": BATCH,
        "measure_secs": secs,
        "generator_ceiling_kpps": round(ceil_closed),
        "generator_ceiling_kpps_runs": ceiling.iter().map(|x| round(*x)).collect::<Vec<_>>(),
        "generator_ceiling_open_loop_kpps": round(ceil_open),
        "generator_ceiling_open_loop_kpps_runs": ceiling_open.iter().map(|x| round(*x)).collect::<Vec<_>>(),
        "throughput": results,
        "default_vs_other_placements": versus,
        "ratios_of_medians": ratios,
        "backpressure": bp,
        "idle": idle,
        "wall_secs": round(t_start.elapsed().as_secs_f64()),
    });
    let text = serde_json::to_string(&doc).unwrap();
    println!("{text}");
    // `cargo xtask bench` collects reports in NFC_BENCH_OUT.
    if let Some(dir) = std::env::var_os("NFC_BENCH_OUT") {
        let path = Path::new(&dir).join("flash_chain.json");
        if let Err(e) = std::fs::create_dir_all(&dir).and_then(|_| std::fs::write(&path, &text)) {
            eprintln!("flash_chain: cannot write {}: {e}", path.display());
        }
    }
}
