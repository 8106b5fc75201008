//! nfc's own counter dataset, the collector's overhead and the flash cost
//! model's calibration, on flash-rt chains on this machine (needs root:
//! namespaces, AF_XDP, perf). Steps (`--steps overhead,dataset,saturation,predict`,
//! default all):
//!
//! 1. `overhead`: collector overhead, ABAB. examples/flowmage-3nf.yaml
//!    (unreduced, ingress and egress on two veths) served by `nfc run` in
//!    a namespace; flash-rt's AF_XDP generator drives it at full speed
//!    (open loop, 1024 flows, 128-byte frames) from a peer namespace.
//!    Windows of `--window` seconds alternate without (A) and with (B)
//!    `nfc monitor`, `--pairs` pairs for each of two configurations
//!    (`--period 0.5`, the default, and 0.1, the fastest), on the same
//!    deployment in one run. Each B is compared with the mean of its two
//!    neighbouring A windows; the noise is the spread of the ratios of
//!    consecutive A windows (without/without). Reported: the median ratio
//!    per configuration, its range, and the noise.
//! 2. `dataset`: `nfc profile` on flowmage-3nf and flash-dag under the
//!    load, resource and both stimuli, seeds 1 and 2 (separately collected
//!    runs), `--duration` seconds each, into
//!    `$NFC_BENCH_OUT/own-data/<chain>/<stimulus>-s<seed>.csv` (the
//!    `predictor-own` step trains and evaluates on them).
//! 3. `saturation`: closed-loop saturation (at most 1024 frames in flight,
//!    frames known by their IPv4 identification, a frame not back after
//!    RACK-style loss detection: `ClosedLoop`) of every example chain and the
//!    calibration chains in `benches/flash-cost-chains/` (or `--chains`),
//!    each driven with its own traffic profile (the packets the predict
//!    stage's replay cycles through), under each machine condition of
//!    `--loads` (default `quiet,hog-all`: the machine as it is, then with a
//!    stress-ng CPU worker per CPU), `--sat-rounds` rounds of one
//!    `--sat-window`-second window per chain, the chain order rotating
//!    each round; a machine probe (`nfc-machine-probe`, as the predict
//!    stage takes it) before each chain is served and after it stopped;
//!    delivered and offered rates, probes and load averages per window
//!    (`own-data/measured.json`: condition → chain).
//! 4. `predict`: each chain's per-NF callgrind costs and its time-faithful
//!    replay at the offered rate; the flash cost model fitted on (3) over
//!    both conditions and the chains the replay does not cap, its
//!    leave-one-chain-out error per condition (`own-data/cost-model.json`),
//!    the shipped model's error on the same measurements, and, under each
//!    condition, `nfc build <example> --target flash --emit prediction`
//!    with the fresh model (`NFC_CHECK_MODEL=shipped`: the shipped one;
//!    either probes the machine) followed at once by `--check-rounds`
//!    windows of that chain, predicted vs measured. Without the
//!    `saturation` step it reads `own-data/measured.json` of a previous run.
//!
//! Diagnosis: `NFC_SAT_STATS=1` prints the monitor's per-NF and per-socket
//! counters before and after every window; `NFC_SAT_PROBE_CMD` runs a
//! shell command beside each measured window (`$PIDS`: the NF hosts).
//!
//! Without `--bench` (`cargo test` mode) it does nothing. The JSON document
//! is the last stdout line.

use flash_rt::host::now_ns;
use flash_rt::xdp::loadgen::{ClosedLoop, LoadGen, LoadGenConfig};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const NFC: &str = env!("CARGO_BIN_EXE_nfc");

#[path = "common/nfc_run.rs"]
mod nfc_run;

fn ip(args: &[&str]) {
    let out = Command::new("ip").args(args).output().expect("run ip");
    assert!(
        out.status.success(),
        "ip {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

struct Net {
    dut: String,
    peer: String,
}

impl Net {
    fn new() -> Net {
        let t = std::process::id() % 100_000;
        let net = Net {
            dut: format!("nfpdd{t}"),
            peer: format!("nfpdp{t}"),
        };
        for ns in [&net.dut, &net.peer] {
            ip(&["netns", "add", ns]);
            let _ = Command::new("ip")
                .args([
                    "netns",
                    "exec",
                    ns,
                    "sysctl",
                    "-qw",
                    "net.ipv6.conf.all.disable_ipv6=1",
                    "net.ipv6.conf.default.disable_ipv6=1",
                ])
                .status();
        }
        for (a, b) in [("vi0", "dut_in"), ("vo0", "dut_out")] {
            ip(&[
                "-n", &net.peer, "link", "add", a, "type", "veth", "peer", "name", b, "netns",
                &net.dut,
            ]);
            ip(&["-n", &net.peer, "link", "set", a, "up"]);
            ip(&["-n", &net.dut, "link", "set", b, "up"]);
        }
        net
    }
}

impl Drop for Net {
    fn drop(&mut self) {
        for ns in [&self.dut, &self.peer] {
            let _ = Command::new("ip").args(["netns", "del", ns]).status();
        }
    }
}

fn build(chain: &Path, out: &Path, cache: &Path) {
    let o = Command::new(NFC)
        .arg("build")
        .arg(chain)
        .args(["--target", "flash", "--no-reduce", "-o"])
        .arg(out)
        .arg("--cache-dir")
        .arg(cache)
        .output()
        .expect("nfc build");
    assert!(
        o.status.success(),
        "build {}: {}",
        chain.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    let file = out.join("deployment.json");
    let mut d = flash_rt::deploy::Deployment::load(&file).expect("deployment");
    d.monitor.socket = out.join("mon.sock");
    std::fs::write(&file, d.to_json()).expect("deployment");
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        f64::NAN
    } else if v.len() % 2 == 1 {
        v[v.len() / 2]
    } else {
        (v[v.len() / 2 - 1] + v[v.len() / 2]) / 2.0
    }
}

/// Mpps out of the chain over `secs` with the generator at full speed
/// (open loop: an NF that drops cannot stall it).
fn window(g: &mut LoadGen, secs: f64) -> f64 {
    let start = now_ns();
    let end = start + (secs * 1e9) as u64;
    let got0 = g.received;
    loop {
        let now = now_ns();
        if now >= end {
            break;
        }
        if g.send(256, now) == 0 && g.tx_backlog() > 0 {
            g.kick();
        }
        g.recv(256, now_ns(), None);
    }
    (g.received - got0) as f64 / ((now_ns() - start) as f64 / 1e9) / 1e6
}

/// Packets/s out of the chain (delivered) and into it (offered) over
/// `secs`, frames counted lost and the loop's reordering window (ms) at
/// the end: closed loop (`ClosedLoop`, as `nfc profile`'s calibration: at
/// most 1024 frames in flight; a frame, known by its IPv4 identification,
/// counts as lost and frees its slot once frames sent after it came back
/// and a reordering window passed, or after 100 ms).
fn closed_window(g: &mut LoadGen, cl: &mut ClosedLoop, secs: f64) -> [f64; 4] {
    let w = cl.run_for(g, secs, None);
    [
        w.delivered_pps(),
        w.offered_pps(),
        w.lost as f64,
        cl.reorder_window_ns() as f64 / 1e6,
    ]
}

/// The generator's closed loop: RACK loss detection, or with
/// `NFC_SAT_FIXED_TIMEOUT=1` the 100 ms timeout alone (diagnosis: what
/// the timeout does to a chain that drops).
fn new_loop() -> ClosedLoop {
    if std::env::var_os("NFC_SAT_FIXED_TIMEOUT").is_some() {
        ClosedLoop::with_fixed_timeout(ClosedLoop::WINDOW, ClosedLoop::TIMEOUT_NS)
    } else {
        ClosedLoop::default()
    }
}

/// The generator and sink in the peer namespace, on a thread of their own
/// (setns is per thread): each request is a window, answered with its rate.
enum GenRequest {
    /// Open loop, Mpps.
    Open(f64),
    /// Closed loop, seconds (answered delivered pps, offered pps, frames
    /// lost, the loop's reordering window in ms).
    Closed(f64),
    /// Send these frames from now on (answered 0).
    Traffic(Vec<Vec<u8>>),
}

/// The frames the generator sends for `chain`: its own traffic profile,
/// the same packets (and as many) as the predict stage's rate replay
/// cycles through.
fn chain_frames(chain: &Path) -> Vec<Vec<u8>> {
    let (spec, _) = nfc::driver::load_chain(chain).expect("chain loads");
    let nfc_core::chain::Traffic::Synthetic(mut t) = spec.traffic else {
        panic!("{}: no synthetic traffic profile", chain.display());
    };
    t.packets = t.packets.clamp(1, nfc::prediction::REPLAY_PROFILE_PACKETS);
    let (packets, _) = flash_rt::trace::generate_packets(&t).expect("traffic");
    packets.iter().map(|p| p.data.to_vec()).collect()
}

fn generator(
    peer: String,
) -> (
    std::sync::mpsc::Sender<GenRequest>,
    std::sync::mpsc::Receiver<f64>,
) {
    let (tx, rx) = std::sync::mpsc::channel::<GenRequest>();
    let (rtx, rrx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let f = std::fs::File::open(format!("/run/netns/{peer}")).expect("netns");
        // SAFETY: setns for this thread only.
        assert_eq!(unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) }, 0);
        // The same traffic `nfc profile` sends: 1024 flows, 128-byte frames.
        let spec = nfc_core::chain::TrafficSpec {
            flows: 1024,
            packets: 4096,
            sizes: nfc_core::chain::SizeMix::Fixed(128),
            ..Default::default()
        };
        let (packets, _) = flash_rt::trace::generate_packets(&spec).expect("traffic");
        let frames: Vec<Vec<u8>> = packets.iter().map(|p| p.data.to_vec()).collect();
        let cfg = LoadGenConfig {
            stamp: false,
            ip_id_seq: true,
            ..LoadGenConfig::default()
        };
        let mut g = Some(LoadGen::with_templates("vi0", "vo0", &frames, &cfg).expect("generator"));
        // One closed loop per generator: frames in flight at the end of a
        // window (or lost in it) are still accounted in the next.
        let mut cl = new_loop();
        for req in rx {
            let r = match req {
                GenRequest::Open(s) => vec![window(g.as_mut().expect("generator"), s)],
                GenRequest::Closed(s) => {
                    closed_window(g.as_mut().expect("generator"), &mut cl, s).to_vec()
                }
                GenRequest::Traffic(frames) => {
                    drop(g.take()); // its sockets close before the new ones bind
                    g = Some(
                        LoadGen::with_templates("vi0", "vo0", &frames, &cfg).expect("generator"),
                    );
                    cl = new_loop();
                    vec![0.0]
                }
            };
            if r.into_iter().any(|x| rtx.send(x).is_err()) {
                break;
            }
        }
    });
    (tx, rrx)
}

/// `nfc run` serving `dep` in `ns`, once all `nfs` NF hosts attached;
/// SIGTERM on drop.
struct Served(Option<std::process::Child>);

impl Served {
    fn start(ns: &str, dep: &Path, nfs: usize) -> Served {
        Served(Some(
            nfc_run::serve(ns, dep, nfs, 900).unwrap_or_else(|e| panic!("{e}")),
        ))
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        if let Some(child) = self.0.take() {
            nfc_run::stop(child);
        }
    }
}

/// `chain` built for flash (unreduced) and rewritten by `nfc profile`'s
/// own helper to serve `dut_in`/`dut_out` with a socket of its own.
fn deploy(chain: &Path, work: &Path, name: &str) -> (PathBuf, usize) {
    let dep = work.join(format!("dep-{name}"));
    build(chain, &dep, &work.join("cache"));
    let dir = work.join(format!("served-{name}"));
    std::fs::create_dir_all(&dir).expect("dir");
    let (file, d) = nfc::profile::private_deployment(&dep.join("deployment.json"), &dir)
        .unwrap_or_else(|e| panic!("deployment of {name}: {e:?}"));
    (file, d.nfs.len())
}

/// The collector configurations of the overhead measurement.
const VARIANTS: &[(&str, &[&str])] = &[
    ("nfc monitor --period 0.5 (default)", &["--period", "0.5"]),
    ("nfc monitor --period 0.1", &["--period", "0.1"]),
];

/// Collector overhead, ABAB: one deployment (flowmage-3nf), windows
/// alternating without (A) and with (B) a collector, `pairs` pairs per
/// configuration, configurations taking turns, ending with an A. A B
/// window is compared with the mean of the A windows before and after it
/// (drift of the machine cancels); the noise is the spread of the ratios
/// of consecutive A windows (without/without).
fn overhead(work: &Path, pairs: usize, secs: f64) -> serde_json::Value {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (dep, nfs) = deploy(&root.join("examples/flowmage-3nf.yaml"), work, "overhead");
    let net = Net::new();
    let served = Served::start(&net.dut, &dep, nfs);
    let (gen, rate) = generator(net.peer.clone());
    let measure = |s: f64| -> f64 {
        gen.send(GenRequest::Open(s)).expect("generator");
        rate.recv().expect("generator")
    };
    measure(1.0);
    let settle = std::time::Duration::from_millis(300);
    // Sequence: A, then per pair per configuration B, A.
    let mut a = vec![];
    let mut b: Vec<Vec<(f64, usize)>> = vec![vec![]; VARIANTS.len()];
    std::thread::sleep(settle);
    a.push(measure(secs));
    for p in 0..pairs {
        for (v, (name, args)) in VARIANTS.iter().enumerate() {
            let mut mon = Command::new(NFC)
                .arg("monitor")
                .arg(&dep)
                .args(*args)
                .args(["-o", "/dev/null"])
                .stderr(Stdio::null())
                .spawn()
                .expect("nfc monitor");
            std::thread::sleep(settle);
            let x = measure(secs);
            // SAFETY: signalling our child.
            unsafe { libc::kill(mon.id() as i32, libc::SIGTERM) };
            let _ = mon.wait();
            b[v].push((x, a.len() - 1));
            // The same idle time before an A window as before a B one.
            std::thread::sleep(settle);
            a.push(measure(secs));
            eprintln!(
                "pair {p} {name}: without {:.4}, with {x:.4}, without {:.4} Mpps",
                a[a.len() - 2],
                a[a.len() - 1]
            );
        }
    }
    drop(served);
    drop(net);
    let aa: Vec<f64> = a.windows(2).map(|w| w[1] / w[0]).collect();
    let noise = median(&aa.iter().map(|r| (r - 1.0).abs()).collect::<Vec<_>>());
    let (lo, hi) = aa
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), r| {
            (l.min(*r), h.max(*r))
        });
    eprintln!(
        "\nwithout/without (consecutive A windows): {} ratios, median |1 - ratio| {:.1}% (range {lo:.3}-{hi:.3})",
        aa.len(),
        noise * 100.0
    );
    eprintln!("\n| collector | pairs | median Mpps with | median ratio with/without (neighbouring A windows) | range | vs noise ({:.1}%) |", noise * 100.0);
    eprintln!("|---|---|---|---|---|---|");
    let mut variants = vec![];
    for (v, (name, _)) in VARIANTS.iter().enumerate() {
        let ratios: Vec<f64> = b[v]
            .iter()
            .map(|(x, i)| x / ((a[*i] + a[*i + 1]) / 2.0))
            .collect();
        let ratio = median(&ratios);
        let (l, h) = ratios
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), r| {
                (l.min(*r), h.max(*r))
            });
        let below = (1.0 - ratio).abs() <= noise;
        eprintln!(
            "| {name} | {} | {:.4} | {ratio:.3} ({:+.1}%) | {l:.3}-{h:.3} | {} |",
            ratios.len(),
            median(&b[v].iter().map(|x| x.0).collect::<Vec<_>>()),
            (ratio - 1.0) * 100.0,
            if below {
                "below the noise"
            } else {
                "ABOVE the noise"
            }
        );
        variants.push(serde_json::json!({"collector": name, "mpps_with": b[v].iter().map(|x| x.0).collect::<Vec<_>>(), "ratios": ratios, "median_ratio": ratio, "below_noise": below}));
    }
    serde_json::json!({"design": "ABAB: A = no collector, B = collector, same deployment, ratio to the mean of the neighbouring A windows", "window_s": secs, "mpps_without": a, "without_without_ratios": aa, "noise": noise, "variants": variants})
}

/// A `stress-ng --cpu` hog for a machine condition ("hog-all": one
/// worker per CPU; "hog-cpuN": one pinned to CPU N), bounded by
/// `--timeout` and its process group killed on drop.
struct Hog(Option<std::process::Child>);

impl Hog {
    fn start(condition: &str, secs: u64) -> Hog {
        // "hog-cpuN": one worker pinned to CPU N; "hog-all": one per CPU.
        let args: Vec<String> = if let Some(cpu) = condition.strip_prefix("hog-cpu") {
            vec!["--cpu".into(), "1".into(), "--taskset".into(), cpu.into()]
        } else if condition == "hog-all" {
            vec![
                "--cpu".into(),
                flash_rt::host::allowed_cpus().len().max(1).to_string(),
            ]
        } else {
            return Hog(None);
        };
        use std::os::unix::process::CommandExt;
        let child = Command::new("stress-ng")
            .args(&args)
            .args(["--cpu-method", "matrixprod"])
            .args(["--timeout", &format!("{secs}s"), "--quiet"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("stress-ng (cargo xtask setup installs it)");
        // Let the hog reach the scheduler's steady state.
        std::thread::sleep(std::time::Duration::from_secs(2));
        Hog(Some(child))
    }
}

impl Drop for Hog {
    fn drop(&mut self) {
        if let Some(mut c) = self.0.take() {
            // SAFETY: signalling the process group we created for it.
            unsafe { libc::kill(-(c.id() as i32), libc::SIGKILL) };
            let _ = c.wait();
        }
    }
}

/// The machine probe the predict stage takes, around a window.
fn probe() -> nfc_machine_probe::MachineProbe {
    nfc_machine_probe::probe_cpus(nfc::prediction::PROBE_WINDOW)
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .trim()
        .to_string()
}

/// One closed-loop window of `dep` served in `ns`: delivered and offered
/// pps, the machine probe before the chain is served and after it
/// stopped (the machine as `nfc build` probes it: without the chain's own
/// hosts, which spin for a while after traffic), the load average.
#[allow(clippy::too_many_arguments)]
fn measure_window(
    gen: &std::sync::mpsc::Sender<GenRequest>,
    rate: &std::sync::mpsc::Receiver<f64>,
    ns: &str,
    name: &str,
    dep: &Path,
    nfs: usize,
    secs: f64,
) -> serde_json::Value {
    let socket = flash_rt::deploy::Deployment::load(dep)
        .expect("deployment")
        .monitor
        .socket;
    let before_probe = probe();
    let served = Served::start(ns, dep, nfs);
    // Warm-up: the hosts leave interrupt mode, the rings fill.
    gen.send(GenRequest::Closed(1.0)).expect("generator");
    for _ in 0..4 {
        rate.recv().expect("generator");
    }
    // `NFC_SAT_PROBE_CMD`: a shell command run beside the measured window
    // (diagnosis: strace, perf), with the NF hosts' pids in `$PIDS` and
    // the chain in `$CHAIN`.
    let cmd = std::env::var("NFC_SAT_PROBE_CMD").ok().map(|cmd| {
        let st = nfc::monitor::stats(&socket).unwrap_or_default();
        let pids: Vec<String> = flash_rt::counters::targets_from_stats(&st)
            .iter()
            .map(|t| t.pid.to_string())
            .collect();
        Command::new("sh")
            .args(["-c", &cmd])
            .env("PIDS", pids.join(","))
            .env("CHAIN", name)
            .spawn()
            .expect("probe command")
    });
    let before = nfc::monitor::stats(&socket).unwrap_or_default();
    gen.send(GenRequest::Closed(secs)).expect("generator");
    let x = rate.recv().expect("generator");
    let o = rate.recv().expect("generator");
    let lost = rate.recv().expect("generator");
    let timeout_ms = rate.recv().expect("generator");
    if let Some(mut p) = cmd {
        let _ = p.wait();
    }
    if std::env::var_os("NFC_SAT_STATS").is_some() {
        let after = nfc::monitor::stats(&socket).unwrap_or_default();
        eprintln!("stats {name} before: {before}");
        eprintln!("stats {name} after: {after}");
    }
    drop(served);
    let after_probe = probe();
    let p = (before_probe.ns_per_unit + after_probe.ns_per_unit) / 2.0;
    serde_json::json!({"pps": x, "offered_pps": o, "lost": lost, "reorder_window_ms": timeout_ms, "probe_ns_per_unit": p, "probe_before": before_probe, "probe_after": after_probe, "loadavg": loadavg()})
}

/// Closed-loop saturation (pps out) of every chain under machine
/// condition `condition` ("quiet": the machine as it is; "hog-…": plus a
/// [`Hog`]): `rounds` rounds of one `secs`-second window per chain, the
/// chain order rotating each round so that a change of the machine's load
/// affects all chains alike.
fn saturation(
    work: &Path,
    chains: &[(String, PathBuf)],
    rounds: usize,
    secs: f64,
    condition: &str,
) -> serde_json::Map<String, serde_json::Value> {
    let deps: Vec<(PathBuf, usize)> = chains
        .iter()
        .map(|(name, yaml)| deploy(yaml, work, name))
        .collect();
    let frames: Vec<Vec<Vec<u8>>> = chains.iter().map(|(_, yaml)| chain_frames(yaml)).collect();
    let net = Net::new();
    let (gen, rate) = generator(net.peer.clone());
    let mut windows: Vec<Vec<serde_json::Value>> = vec![vec![]; chains.len()];
    let _hog = Hog::start(
        condition,
        (rounds * chains.len()) as u64 * (secs as u64 + 10) + 60,
    );
    for r in 0..rounds {
        for k in 0..chains.len() {
            let c = (k + r) % chains.len();
            gen.send(GenRequest::Traffic(frames[c].clone()))
                .expect("generator");
            rate.recv().expect("generator");
            let w = measure_window(
                &gen,
                &rate,
                &net.dut,
                &chains[c].0,
                &deps[c].0,
                deps[c].1,
                secs,
            );
            eprintln!(
                "{condition} round {r} {:<14} {:.0} pps out of {:.0} offered, {} lost (reordering window {:.1} ms), probe {:.0} ns/unit (load {})",
                chains[c].0, w["pps"].as_f64().unwrap_or(0.0), w["offered_pps"].as_f64().unwrap_or(0.0), w["lost"], w["reorder_window_ms"].as_f64().unwrap_or(0.0), w["probe_ns_per_unit"].as_f64().unwrap_or(0.0),
                loadavg().split_whitespace().next().unwrap_or("?")
            );
            windows[c].push(w);
        }
    }
    drop(net);
    let mut out = serde_json::Map::new();
    for ((name, _), w) in chains.iter().zip(&windows) {
        let v: Vec<f64> = w.iter().filter_map(|w| w["pps"].as_f64()).collect();
        let o: Vec<f64> = w.iter().filter_map(|w| w["offered_pps"].as_f64()).collect();
        let p: Vec<f64> = w
            .iter()
            .filter_map(|w| w["probe_ns_per_unit"].as_f64())
            .collect();
        let (l, h) = v
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), r| {
                (l.min(*r), h.max(*r))
            });
        eprintln!(
            "saturation {condition} {name:<14} median {:.0} pps (min {l:.0}, max {h:.0}, {} windows of {secs} s), probe median {:.0} ns/unit",
            median(&v),
            v.len(),
            median(&p)
        );
        out.insert(
            name.clone(),
            serde_json::json!({"saturation_pps": v, "median_pps": median(&v), "offered_pps": o, "median_offered_pps": median(&o), "median_probe_ns_per_unit": median(&p), "windows": w, "window_s": secs, "traffic": "the chain's own profile (nfc::prediction::REPLAY_PROFILE_PACKETS packets, cycled)"}),
        );
    }
    out
}

fn profile(
    dep: &Path,
    stimulus: &str,
    seed: u32,
    secs: f64,
    out: &Path,
) -> Option<serde_json::Value> {
    let o = Command::new(NFC)
        .arg("profile")
        .arg(dep)
        .args([
            "--stimulus",
            stimulus,
            "--duration",
            &secs.to_string(),
            "--phase",
            "4",
            "--period",
            "0.5",
        ])
        .args(["--seed", &seed.to_string(), "-o"])
        .arg(out)
        .output()
        .expect("nfc profile");
    if !o.status.success() {
        eprintln!(
            "profile {} {stimulus} s{seed} FAILED: {}",
            dep.display(),
            String::from_utf8_lossy(&o.stderr)
        );
        return None;
    }
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{}.json", out.display())).ok()?)
            .ok()?;
    eprintln!(
        "profile {:<14} {stimulus:<9} seed {seed}: {} rows, saturation {:.0} pps",
        dep.file_name().unwrap_or_default().to_string_lossy(),
        r["rows"],
        r["saturation_pps"].as_f64().unwrap_or(0.0)
    );
    Some(r)
}

const EXAMPLES: &[&str] = &["flowmage-3nf", "flash-dag", "flowmage-2nf", "ids-firewall"];
const CALIBRATION: &[&str] = &[
    "cal-l2fwd-1",
    "cal-l2fwd-4",
    "cal-maglev-1",
    "cal-fw-lb-mon",
];

fn chain_path(root: &Path, chain: &str) -> PathBuf {
    if chain.starts_with("cal-") {
        root.join(format!("benches/flash-cost-chains/{chain}.yaml"))
    } else {
        root.join(format!("examples/{chain}.yaml"))
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if !args.iter().any(|a| a == "--bench") {
        return;
    }
    let opt = |name: &str, default: f64| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    // `--steps overhead,dataset,saturation,predict` (default: all).
    let steps: Vec<String> = args
        .iter()
        .position(|a| a == "--steps")
        .and_then(|i| args.get(i + 1))
        .map(|s| s.split(',').map(String::from).collect())
        .unwrap_or_else(|| {
            ["overhead", "dataset", "saturation", "predict"]
                .map(String::from)
                .to_vec()
        });
    let step = |s: &str| steps.iter().any(|x| x == s);
    let secs = opt("--duration", 20.0);
    let pairs = opt("--pairs", 6.0) as usize;
    let win = opt("--window", 2.0);
    let sat_rounds = opt("--sat-rounds", 5.0) as usize;
    let sat_win = opt("--sat-window", 3.0);
    // SAFETY: geteuid never fails.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("profile-data: SKIPPED: needs root (network namespaces, AF_XDP, perf)");
        println!("{}", serde_json::json!({"skipped": "needs root"}));
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = std::env::var_os("NFC_BENCH_OUT")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/nfc-bench"))
        .join("own-data");
    std::fs::create_dir_all(&out).expect("out dir");
    let work = tempfile::tempdir_in("/tmp").expect("tempdir");
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(work.path(), std::fs::Permissions::from_mode(0o755))
            .expect("chmod");
    }
    eprintln!("load average before: {}", loadavg());
    // 1. Collector overhead.
    let over = if step("overhead") {
        overhead(work.path(), pairs, win)
    } else {
        serde_json::Value::Null
    };
    // 2. The dataset.
    let mut runs = vec![];
    if step("dataset") {
        for chain in ["flowmage-3nf", "flash-dag"] {
            let dep = work.path().join(chain);
            build(&chain_path(root, chain), &dep, &work.path().join("cache"));
            let dir = out.join(chain);
            std::fs::create_dir_all(&dir).expect("chain dir");
            for stim in ["load", "resource", "both"] {
                for seed in [1, 2] {
                    if let Some(r) = profile(
                        &dep,
                        stim,
                        seed,
                        secs,
                        &dir.join(format!("{stim}-s{seed}.csv")),
                    ) {
                        let received: u64 = r["phases"]
                            .as_array()
                            .map(|p| p.iter().filter_map(|p| p["received"].as_u64()).sum())
                            .unwrap_or(0);
                        if received == 0 {
                            eprintln!(
                                "  {chain} {stim} s{seed}: NOTHING forwarded after calibration"
                            );
                        }
                        runs.push(serde_json::json!({"chain": chain, "stimulus": stim, "seed": seed, "rows": r["rows"], "received": received, "saturation_pps": r["saturation_pps"], "unsupported": r["unsupported"]}));
                    }
                }
            }
        }
    }
    // 3. Saturation of every example and calibration chain.
    // `--chains a,b,dir/c.yaml` measures only these (names of example or
    // calibration chains, or chain files) instead of all of them.
    let chains: Vec<(String, PathBuf)> = match args
        .iter()
        .position(|a| a == "--chains")
        .and_then(|i| args.get(i + 1))
    {
        Some(list) => list
            .split(',')
            .map(|c| {
                if c.ends_with(".yaml") {
                    let p = PathBuf::from(c);
                    let name = p
                        .file_stem()
                        .expect("chain file")
                        .to_string_lossy()
                        .to_string();
                    (name, p)
                } else {
                    (c.to_string(), chain_path(root, c))
                }
            })
            .collect(),
        None => EXAMPLES
            .iter()
            .chain(CALIBRATION)
            .map(|c| (c.to_string(), chain_path(root, c)))
            .collect(),
    };
    // Machine conditions (`--loads quiet,hog-all,hog-cpu1`; default: the
    // machine as it is, then with a stress-ng CPU hog on every CPU).
    let conditions: Vec<String> = args
        .iter()
        .position(|a| a == "--loads")
        .and_then(|i| args.get(i + 1))
        .map(|s| s.split(',').map(String::from).collect())
        .unwrap_or_else(|| vec!["quiet".into(), "hog-all".into()]);
    let check_rounds = opt("--check-rounds", 3.0) as usize;
    // measured.json: condition → chain → windows and medians.
    let measured: serde_json::Map<String, serde_json::Value> = if step("saturation") {
        let mut m = serde_json::Map::new();
        for cond in &conditions {
            eprintln!("condition {cond}: load average {}", loadavg());
            let sat = saturation(work.path(), &chains, sat_rounds, sat_win, cond);
            m.insert(cond.clone(), serde_json::Value::Object(sat));
        }
        std::fs::write(
            out.join("measured.json"),
            serde_json::to_string_pretty(&m).expect("json"),
        )
        .expect("measured.json");
        m
    } else {
        match std::fs::read_to_string(out.join("measured.json")) {
            Ok(t) => serde_json::from_str(&t).expect("measured.json"),
            Err(_) => serde_json::Map::new(),
        }
    };
    // 4. The predict stage: per-NF callgrind costs of every chain, the cost
    // model fitted on (3) across the conditions, its leave-one-chain-out
    // error per condition, and, per condition, `nfc build --emit
    // prediction` (which probes the machine) for every example chain
    // followed at once by a measurement of that chain.
    let mut model = None;
    let mut checks = vec![];
    let mut shipped_cmp = serde_json::Value::Null;
    if step("predict") && !measured.is_empty() {
        // A chain whose own semantics drop more than CAPPED_BELOW of its
        // packets at the rate a condition offered it is held out of the
        // CPU-cost fit (in the closed loop its rate is set by those drops
        // and the generator's 20 ms lost-frame timeout, not by CPU cost);
        // it is still predicted (capacity from the fit, capped) and its
        // error counts.
        const CAPPED_BELOW: f64 = 0.95;
        let ws = nfc::driver::Workspace::new(work.path().join("cache"));
        let mut rows: Vec<nfc::prediction::Measured> = vec![];
        let mut capped = std::collections::BTreeMap::new();
        let mut specs = std::collections::BTreeMap::new();
        let mut costs_of = std::collections::BTreeMap::new();
        for (chain, path) in &chains {
            let per_cond: Vec<(&String, &serde_json::Value)> = measured
                .iter()
                .filter_map(|(c, m)| m.get(chain).map(|v| (c, v)))
                .collect();
            if per_cond.is_empty() {
                eprintln!("costs {chain}: no measured saturation");
                continue;
            }
            let (spec, _) = nfc::driver::load_chain(path).expect("chain loads");
            let costs = match nfc::prediction::measure_costs(
                &spec,
                path,
                Path::new(NFC),
                &work.path().join("cache"),
            ) {
                Ok(costs) => costs,
                Err(e) => {
                    eprintln!("costs {chain}: FAILED: {e:?}");
                    continue;
                }
            };
            eprintln!(
                "costs {chain:<14} {}",
                costs
                    .iter()
                    .map(|c| format!(
                        "{} {:.0} instr, {:.0} mem, {:.2} D1 miss/pkt",
                        c.nf, c.instructions, c.memory_accesses, c.d1_misses
                    ))
                    .collect::<Vec<_>>()
                    .join("; ")
            );
            for (cond, m) in per_cond {
                let offered = m["median_offered_pps"]
                    .as_f64()
                    .or(m["median_pps"].as_f64())
                    .unwrap_or(0.0);
                if offered > 0.0 {
                    let replay = nfc::prediction::replay_at_rate(&spec, &ws, offered)
                        .unwrap_or_else(|e| panic!("replay {chain}: {e:?}"));
                    eprintln!(
                        "replay {chain:<14} ({cond}) at {offered:.0} pps offered: pass fraction {:.4}, drops {:?}",
                        replay.pass_fraction, replay.drops
                    );
                    if replay.pass_fraction < CAPPED_BELOW {
                        capped.insert(chain.clone(), replay.pass_fraction);
                    }
                }
                let ws = m["windows"].as_array().cloned().unwrap_or_default();
                let windows: Vec<(f64, f64)> = ws
                    .iter()
                    .filter_map(|w| Some((w["pps"].as_f64()?, w["probe_ns_per_unit"].as_f64()?)))
                    .collect();
                // Single probes in time order (before, after each window).
                let probes: Vec<f64> = ws
                    .iter()
                    .flat_map(|w| [&w["probe_before"], &w["probe_after"]])
                    .filter_map(|p| p["ns_per_unit"].as_f64())
                    .collect();
                rows.push(nfc::prediction::Measured {
                    chain: chain.clone(),
                    costs: costs.clone(),
                    condition: cond.clone(),
                    windows,
                    probes,
                });
            }
            specs.insert(chain.clone(), spec);
            costs_of.insert(chain.clone(), costs);
        }
        let conds_desc: std::collections::BTreeMap<String, String> = measured
            .iter()
            .map(|(c, m)| {
                let probes: Vec<f64> = m
                    .as_object()
                    .into_iter()
                    .flat_map(|o| o.values())
                    .flat_map(|v| v["windows"].as_array().cloned().unwrap_or_default())
                    .filter_map(|w| w["probe_ns_per_unit"].as_f64())
                    .collect();
                let loads: Vec<f64> = m
                    .as_object()
                    .into_iter()
                    .flat_map(|o| o.values())
                    .flat_map(|v| v["windows"].as_array().cloned().unwrap_or_default())
                    .filter_map(|w| w["loadavg"].as_str()?.split_whitespace().next()?.parse().ok())
                    .collect();
                let (lo, hi) = loads.iter().fold((f64::INFINITY, 0.0f64), |(l, h), x| (l.min(*x), h.max(*x)));
                let (plo, phi) = probes.iter().fold((f64::INFINITY, 0.0f64), |(l, h), x| (l.min(*x), h.max(*x)));
                (
                    c.clone(),
                    format!(
                        "{}; probe median {:.0} ns/unit ({plo:.0}–{phi:.0}); 1-min load average {lo:.1}–{hi:.1}",
                        match c.strip_prefix("hog-") { None => "no stressor of ours".to_string(), Some("all") => "stress-ng --cpu, one worker per CPU".to_string(), Some(cpu) => format!("stress-ng --cpu 1 pinned to {cpu}") },
                        median(&probes)
                    ),
                )
            })
            .collect();
        let provenance = format!(
            "closed-loop saturation under nfc run (flash-rt, unreduced, debug build, each chain's own traffic profile, {sat_rounds} interleaved rounds of {sat_win} s per chain per condition, a {:.1} s machine probe before the chain is served and after it stopped, for each window; the error over medians of {} consecutive probes, as the predict stage probes) on this 2-CPU VM, {}, conditions: {}; callgrind over each chain's traffic profile ({} packets); fitted on the chains whose time-faithful replay passes at least {:.0}% of the packets at the offered rate",
            nfc::prediction::PROBE_WINDOW.as_secs_f64(),
            nfc::prediction::PREDICTION_PROBES,
            Command::new("date").arg("-u").output().map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string()).unwrap_or_default(),
            conds_desc.iter().map(|(c, d)| format!("{c} ({d})")).collect::<Vec<_>>().join(", "),
            nfc::prediction::COST_PACKETS,
            CAPPED_BELOW * 100.0
        );
        // Delivered = min(capacity, capacity × pass fraction at capacity),
        // replays cached by (chain, capacity to 0.1%).
        let mut replays: std::collections::BTreeMap<(String, i64), f64> = Default::default();
        let mut deliver = |chain: &str, capacity: f64| -> f64 {
            let key = (chain.to_string(), (capacity.ln() * 1000.0).round() as i64);
            if let Some(f) = replays.get(&key) {
                return capacity * f;
            }
            match nfc::prediction::replay_at_rate(&specs[chain], &ws, capacity) {
                Ok(r) => {
                    replays.insert(key, r.pass_fraction.min(1.0));
                    capacity * r.pass_fraction.min(1.0)
                }
                Err(e) => panic!("replay {chain} at {capacity:.0} pps: {e:?}"),
            }
        };
        // The shipped model on this run's measurements (out of sample for
        // it), capped the same way: what a refit has to beat.
        let (shipped, _) = nfc::prediction::load_model(None).expect("shipped model");
        let mut shipped_err = std::collections::BTreeMap::new();
        for r in &rows {
            let cap = median(
                &r.windows
                    .iter()
                    .map(|(_, p)| 1e9 / (shipped.ns_per_packet(&r.costs) * shipped.scale(*p)))
                    .collect::<Vec<_>>(),
            );
            let pred = deliver(&r.chain, cap);
            let meas = median(&r.windows.iter().map(|w| w.0).collect::<Vec<_>>());
            shipped_err.insert(
                format!("{} ({})", r.chain, r.condition),
                (pred, ((pred - meas) / meas).abs()),
            );
        }
        let mut m =
            nfc::prediction::CostModel::fit_measured(&rows, &capped, &mut deliver, provenance);
        if let Some(m) = &mut m {
            m.conditions = conds_desc.clone();
        }
        model = m;
        if let Some(m) = &model {
            let path = out.join("cost-model.json");
            std::fs::write(&path, serde_json::to_string_pretty(m).expect("json"))
                .expect("cost model");
            let shipped_max = shipped_err.values().map(|v| v.1).fold(0.0, f64::max);
            let sv: Vec<f64> = shipped_err.values().map(|v| v.1).collect();
            eprintln!(
                "\ncost model: ({:.0} ns per packet + {:.0} ns per NF host + {:.3} ns per NF instruction) × (probe / {:.0} ns)^{:.2}; fitted on {} chains × {} conditions, {} held out as capped; leave-one-chain-out error median {:.1}%, max {:.1}% (reported)",
                m.ns_base,
                m.ns_per_hop,
                m.ns_per_instruction,
                m.probe_reference.unwrap_or(f64::NAN),
                m.load_exponent,
                m.calibrated_on.len(),
                conditions.len(),
                capped.len(),
                m.median_error() * 100.0,
                m.error * 100.0
            );
            for (c, errs) in &m.loco_errors_by_condition {
                let v: Vec<f64> = errs.values().copied().collect();
                eprintln!(
                    "  {c}: leave-one-chain-out error median {:.1}%, max {:.1}%",
                    median(&v) * 100.0,
                    v.iter().copied().fold(0.0, f64::max) * 100.0
                );
            }
            eprintln!(
                "shipped model on this run (capped the same way, no machine scaling): error median {:.1}%, max {:.1}%",
                median(&sv) * 100.0,
                shipped_max * 100.0,
            );
            shipped_cmp = serde_json::json!({"shipped_errors": shipped_err, "shipped_max": shipped_max, "refit_max": m.error, "refit_better": m.error < shipped_max});
            eprintln!("\n| chain | condition | NF hosts | NF instructions/pkt | measured pps out (median) | probe ns/unit (median) | in fit | predicted (this chain left out) | leave-one-chain-out error | shipped model predicted / error |");
            eprintln!("|---|---|---|---|---|---|---|---|---|---|");
            for r in &rows {
                let key = format!("{} ({})", r.chain, r.condition);
                eprintln!(
                    "| {} | {} | {} | {:.0} | {:.0} | {:.0} | {} | {:.0} | {:.1}% | {:.0} / {:.1}% |",
                    r.chain,
                    r.condition,
                    r.costs.len(),
                    r.costs.iter().map(|c| c.instructions).sum::<f64>(),
                    median(&r.windows.iter().map(|w| w.0).collect::<Vec<_>>()),
                    median(&r.windows.iter().map(|w| w.1).collect::<Vec<_>>()),
                    if capped.contains_key(&r.chain) { "no (capped)" } else { "yes" },
                    m.loco_predictions.get(&key).copied().unwrap_or(f64::NAN),
                    m.loco_errors.get(&key).copied().unwrap_or(f64::NAN) * 100.0,
                    shipped_err[&key].0,
                    shipped_err[&key].1 * 100.0
                );
            }
            // The acceptance check, for every example chain under every
            // condition: `nfc build … --emit prediction` with this model
            // (its machine probe taken then), then that chain measured at
            // once under the same condition.
            eprintln!("\n| condition | nfc build <chain> --target flash --emit prediction | predicted pps | scale (probe) | bottleneck | measured pps (median of {check_rounds}) | off by | reported error | within | load average |");
            eprintln!("|---|---|---|---|---|---|---|---|---|---|");
            let examples: Vec<&(String, PathBuf)> = chains
                .iter()
                .filter(|(c, _)| EXAMPLES.contains(&c.as_str()))
                .collect();
            for cond in &conditions {
                let deps: Vec<(PathBuf, usize)> = examples
                    .iter()
                    .map(|(name, yaml)| deploy(yaml, work.path(), &format!("check-{name}")))
                    .collect();
                let net = Net::new();
                let (gen, rate) = generator(net.peer.clone());
                let _hog = Hog::start(cond, examples.len() as u64 * 120 + 60);
                for ((chain, yaml), (dep, nfs)) in examples.iter().zip(&deps) {
                    let dir = work.path().join(format!("predict-{chain}-{cond}"));
                    let mut build = Command::new(NFC);
                    build.arg("build").arg(yaml).args([
                        "--target",
                        "flash",
                        "--emit",
                        "prediction",
                        "--no-reduce",
                    ]);
                    // `NFC_CHECK_MODEL=shipped`: check the model nfc ships
                    // (data/flash-cost-model.json) instead of this fit.
                    if std::env::var("NFC_CHECK_MODEL").as_deref() != Ok("shipped") {
                        build.arg("--cost-model").arg(&path);
                    }
                    let o = build
                        .arg("-o")
                        .arg(&dir)
                        .arg("--cache-dir")
                        .arg(work.path().join("cache"))
                        .output()
                        .expect("nfc build");
                    if !o.status.success() {
                        eprintln!(
                            "| {cond} | {chain} | FAILED: {} |",
                            String::from_utf8_lossy(&o.stderr).trim()
                        );
                        checks.push(serde_json::json!({"chain": chain, "condition": cond, "failed": String::from_utf8_lossy(&o.stderr)}));
                        continue;
                    }
                    let p: serde_json::Value = serde_json::from_str(
                        &std::fs::read_to_string(dir.join("prediction.json"))
                            .expect("prediction.json"),
                    )
                    .expect("json");
                    let pred = p["throughput_mpps"].as_f64().unwrap_or(f64::NAN) * 1e6;
                    let err = p["error"].as_f64().unwrap_or(f64::NAN);
                    gen.send(GenRequest::Traffic(chain_frames(yaml)))
                        .expect("generator");
                    rate.recv().expect("generator");
                    let mut ws = vec![];
                    for _ in 0..check_rounds {
                        ws.push(measure_window(
                            &gen, &rate, &net.dut, chain, dep, *nfs, sat_win,
                        ));
                    }
                    let meas = median(
                        &ws.iter()
                            .filter_map(|w| w["pps"].as_f64())
                            .collect::<Vec<_>>(),
                    );
                    let rel = ((pred - meas) / meas).abs();
                    eprintln!(
                        "| {cond} | {chain} | {pred:.0} | {:.2} ({:.0}) | {} | {meas:.0} | {:.1}% | {:.1}% | {} | {} |",
                        p["machine"]["scale"].as_f64().unwrap_or(f64::NAN),
                        p["machine"]["probe_ns_per_unit"].as_f64().unwrap_or(f64::NAN),
                        p["bottleneck"].as_str().unwrap_or("?"),
                        rel * 100.0,
                        err * 100.0,
                        if rel <= err { "yes" } else { "NO" },
                        loadavg()
                    );
                    checks.push(serde_json::json!({"chain": chain, "condition": cond, "predicted_pps": pred, "measured_pps": meas, "windows": ws, "relative_error": rel, "reported_error": err, "within": rel <= err, "prediction": p, "loadavg": loadavg()}));
                }
            }
        }
    }
    eprintln!("load average after: {}", loadavg());
    println!(
        "{}",
        serde_json::json!({"overhead": over, "runs": runs, "measured": measured, "cost_model": model, "shipped_vs_refit": shipped_cmp, "predict_checks": checks, "data": out.display().to_string()})
    );
}
