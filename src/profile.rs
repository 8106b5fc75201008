//! `nfc profile <deployment>`: a counter dataset of a flash chain under
//! stimuli (seed 003 §IV), for the predictor.
//!
//! The profile runs the deployment itself, in network namespaces of its
//! own: a DUT namespace where `nfc run` serves a private copy of the
//! deployment (its own monitor socket; a hairpin deployment, which sends
//! back out of its ingress, gets its egress on a second interface, since
//! the generator cannot transmit and sink on one veth queue), and a peer
//! namespace where flash-rt's AF_XDP generator sends a synthetic traffic
//! profile (1024 flows, TCP and UDP, nfc's trace generator; every frame
//! carries a sequence number and its send time in its payload, byte 54 on) and its sink counts and times what leaves the chain. Every
//! `period` one row is written: the generator's send and receive rates,
//! the mean latency of the frames received in that period (µs; the
//! predictor's 15000 "no probe returned" value when frames were sent and
//! none came back) and every NF host's counters ([`crate::monitor`]).
//!
//! Stimuli, one phase (`phase` seconds) at a time after a calibration phase
//! that measures the chain's saturation rate (the generator at full
//! speed, open loop; what comes out):
//! - load: the offered rate, a fraction of 1.2× saturation — constant in
//!   half of the phases (regular), redrawn every period in the others
//!   (random);
//! - resource: `stress-ng` CPU, cache or memory stressors pinned to the CPUs
//!   the NF hosts may run on, or a cgroup v1 CPU quota (cpu.cfs_quota_us)
//!   on the NF hosts, or nothing, at a fixed offered rate (0.6×
//!   saturation);
//! - both: a random rate and a random resource stimulus together.
//!
//! Everything is bounded and cleaned: stressors run with `--timeout` and in
//! a process group of their own that is killed at the end of each phase;
//! the cgroup gets its tasks moved back and is removed; `nfc run` is
//! stopped (it detaches its XDP programs), the generator's sink detaches
//! its own, and both namespaces are deleted (with their veths). The guards
//! do this on every path out, including an error and a stop request
//! (Ctrl-C/SIGTERM set `stop`). Names carry a per-process tag.

use crate::monitor::{cell, Sampler};
use crate::Failure;
use flash_rt::deploy::{Deployment, Endpoint, InterfaceSpec};
use flash_rt::host::now_ns;
use flash_rt::xdp::loadgen::{ClosedLoop, LoadGen, LoadGenConfig};
use nfc_core::Diagnostic;
use rand::{Rng, SeedableRng};
use std::io::{BufRead, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The latency written when frames were sent in a period and none returned
/// (the predictor's censored fill value, `nfc_predictor::data::CENSORED_LATENCY`).
pub const NO_PROBE_RETURNED: f64 = 15000.0;
/// Byte offset of the stamp in the generated TCP frame: its payload.
const STAMP_AT: usize = 54;

/// Which stimuli drive the chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stimulus {
    Load,
    Resource,
    Both,
}

/// How to profile.
#[derive(Debug, Clone)]
pub struct ProfileOptions {
    pub stimulus: Stimulus,
    /// Seconds of stimulus phases (after calibration).
    pub duration: f64,
    /// Seconds per phase.
    pub phase: f64,
    /// Seconds per row.
    pub period: f64,
    pub seed: u64,
    /// The `nfc` executable (runs `nfc run` and the NF hosts).
    pub nfc_exe: PathBuf,
    /// Unique tag for namespace, cgroup and directory names.
    pub tag: String,
    /// Frame length in bytes.
    pub frame_len: usize,
}

/// What a profile did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ProfileReport {
    pub deployment: String,
    pub stimulus: String,
    pub rows: usize,
    pub columns: Vec<String>,
    pub unsupported: Vec<(String, String)>,
    pub saturation_pps: f64,
    /// Per row: the phase's description and the loss (sent − received) in that period.
    pub phases: Vec<PhaseRecord>,
    pub stopped_early: bool,
    /// Everything created, each removed at the end.
    pub created: Vec<String>,
    /// What `nfc run` said after every NF attached (an NF host that
    /// ended, a restart): empty on a clean run.
    pub runtime_messages: Vec<String>,
}

/// One phase of the schedule.
#[derive(Debug, Clone, serde::Serialize)]
pub struct PhaseRecord {
    pub load: String,
    pub resource: String,
    pub rows: usize,
    pub sent: u64,
    pub received: u64,
}

fn fail(code: &'static str, msg: String, hint: &str) -> Failure {
    Failure::diag(Diagnostic::error(code, msg).with_hint(hint))
}

fn ip(args: &[&str]) -> Result<(), Failure> {
    let out = Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| Failure::io("running `ip` (iproute2)", e))?;
    if !out.status.success() {
        return Err(Failure::Internal {
            stage: "profile",
            message: format!(
                "ip {}: {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr).trim()
            ),
        });
    }
    Ok(())
}

/// A network namespace deleted on drop.
struct NetNs(String);

impl NetNs {
    fn new(name: String) -> Result<NetNs, Failure> {
        ip(&["netns", "add", &name])?;
        let ns = NetNs(name);
        ip(&["-n", &ns.0, "link", "set", "lo", "up"])?;
        let _ = Command::new("ip")
            .args(["netns", "exec", &ns.0, "sysctl", "-qw"])
            .args([
                "net.ipv6.conf.all.disable_ipv6=1",
                "net.ipv6.conf.default.disable_ipv6=1",
            ])
            .stderr(Stdio::null())
            .status();
        Ok(ns)
    }
}

impl Drop for NetNs {
    fn drop(&mut self) {
        let _ = Command::new("ip").args(["netns", "del", &self.0]).status();
    }
}

/// `nfc run` in the DUT namespace: SIGTERM and wait on drop (the monitor
/// detaches its XDP programs and stops the NF hosts).
struct Served(Child, Arc<Mutex<Vec<String>>>);

impl Drop for Served {
    fn drop(&mut self) {
        // SAFETY: signalling our child (ip netns exec execs nfc in place).
        unsafe { libc::kill(self.0.id() as i32, libc::SIGTERM) };
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.0.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A stress-ng process group, killed on drop.
struct Stressor(Child);

impl Drop for Stressor {
    fn drop(&mut self) {
        let pg = self.0.id() as i32;
        // SAFETY: signalling the process group we created for it.
        unsafe { libc::kill(-pg, libc::SIGKILL) };
        let _ = self.0.wait();
    }
}

/// A cgroup v1 `cpu` group holding the NF hosts: tasks moved back to where
/// they were and the directory removed on drop.
struct CpuQuota {
    dir: PathBuf,
    /// (tid, the cpu cgroup it came from).
    moved: Vec<(u32, PathBuf)>,
}

const CPU_CGROUP: &str = "/sys/fs/cgroup/cpu";

impl CpuQuota {
    fn new(tag: &str, pids: &[u32], share: f64) -> Result<CpuQuota, Failure> {
        let root = Path::new(CPU_CGROUP);
        if !root.join("cpu.cfs_quota_us").exists() {
            return Err(fail(
                "E0613",
                format!("no cgroup v1 cpu controller at {CPU_CGROUP}"),
                "the resource stimulus's CPU quota needs cgroup v1's cpu controller (cgroup v2 cpu.max is not supported here)",
            ));
        }
        let dir = root.join(format!("nfc-profile-{tag}"));
        std::fs::create_dir(&dir)
            .map_err(|e| Failure::io(format!("creating {}", dir.display()), e))?;
        let mut q = CpuQuota { dir, moved: vec![] };
        let period = 100_000u64;
        q.write("cpu.cfs_period_us", &period.to_string())?;
        q.write(
            "cpu.cfs_quota_us",
            &((period as f64 * share) as u64).max(1000).to_string(),
        )?;
        for &pid in pids {
            for tid in tids(pid) {
                let from = cpu_cgroup_of(tid);
                if q.write("tasks", &tid.to_string()).is_ok() {
                    q.moved.push((tid, from));
                }
            }
        }
        Ok(q)
    }

    fn write(&self, file: &str, v: &str) -> Result<(), Failure> {
        let p = self.dir.join(file);
        std::fs::write(&p, v).map_err(|e| Failure::io(format!("writing {v} to {}", p.display()), e))
    }
}

impl Drop for CpuQuota {
    fn drop(&mut self) {
        for (tid, from) in &self.moved {
            let _ = std::fs::write(from.join("tasks"), tid.to_string());
        }
        // Threads we did not know of: back to the root group.
        if let Ok(t) = std::fs::read_to_string(self.dir.join("tasks")) {
            for tid in t.lines() {
                let _ = std::fs::write(Path::new(CPU_CGROUP).join("tasks"), tid);
            }
        }
        for _ in 0..50 {
            if std::fs::remove_dir(&self.dir).is_ok() || !self.dir.exists() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn tids(pid: u32) -> Vec<u32> {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .map(|d| {
            d.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// The cpu cgroup directory a task is in (cgroup v1).
fn cpu_cgroup_of(tid: u32) -> PathBuf {
    let text = std::fs::read_to_string(format!("/proc/{tid}/cgroup")).unwrap_or_default();
    for line in text.lines() {
        let mut f = line.splitn(3, ':');
        let (_, ctrl, path) = (f.next(), f.next().unwrap_or(""), f.next().unwrap_or("/"));
        if ctrl.split(',').any(|c| c == "cpu") {
            return Path::new(CPU_CGROUP).join(path.trim_start_matches('/'));
        }
    }
    PathBuf::from(CPU_CGROUP)
}

/// CPUs process `pid` may run on.
fn cpus_of(pid: u32) -> Vec<usize> {
    // SAFETY: a zeroed cpu_set_t is valid; sched_getaffinity fills it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(pid as i32, std::mem::size_of::<libc::cpu_set_t>(), &mut set)
            != 0
        {
            return vec![];
        }
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .collect()
    }
}

/// The resource stimulus of one phase.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Resource {
    None,
    Cpu,
    Cache,
    Memory,
    Quota(f64),
}

impl Resource {
    fn describe(self) -> String {
        match self {
            Resource::None => "none".into(),
            Resource::Cpu => "stress-ng --cpu".into(),
            Resource::Cache => "stress-ng --cache".into(),
            Resource::Memory => "stress-ng --vm".into(),
            Resource::Quota(s) => format!("cgroup cpu quota {:.0}%", s * 100.0),
        }
    }
}

/// What one phase holds alive (dropped at the phase's end).
#[allow(dead_code)] // held for their Drop only
enum Held {
    Stress(Stressor),
    Quota(CpuQuota),
}

fn start_resource(
    r: Resource,
    opts: &ProfileOptions,
    pids: &[u32],
    cpus: &[usize],
    scratch: &Path,
) -> Result<Option<Held>, Failure> {
    let stress = |args: &[&str]| -> Result<Option<Held>, Failure> {
        use std::os::unix::process::CommandExt;
        let list: Vec<String> = cpus.iter().map(usize::to_string).collect();
        let timeout = format!("{}s", (opts.phase.ceil() as u64) + 2);
        let mut cmd = Command::new("stress-ng");
        cmd.args(args)
            .args([
                "--taskset",
                &list.join(","),
                "--timeout",
                &timeout,
                "--quiet",
            ])
            .arg("--temp-path")
            .arg(scratch)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0);
        let child = cmd.spawn().map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                fail(
                    "E0613",
                    "stress-ng is not installed: the resource stimulus runs it".into(),
                    "install it with `cargo xtask setup` (apt package stress-ng)",
                )
            } else {
                Failure::io("starting stress-ng", e)
            }
        })?;
        Ok(Some(Held::Stress(Stressor(child))))
    };
    let n = cpus.len().max(1).to_string();
    match r {
        Resource::None => Ok(None),
        Resource::Cpu => stress(&["--cpu", &n, "--cpu-method", "matrixprod"]),
        Resource::Cache => stress(&["--cache", &n]),
        Resource::Memory => stress(&["--vm", "1", "--vm-bytes", "128M"]),
        Resource::Quota(share) => Ok(Some(Held::Quota(CpuQuota::new(&opts.tag, pids, share)?))),
    }
}

/// KPIs the generator thread accumulates; the sampler takes them per period.
#[derive(Default)]
struct Kpi {
    sent: AtomicU64,
    received: AtomicU64,
    lat_sum_ns: AtomicU64,
    lat_n: AtomicU64,
    /// Offered rate in packets per second (f64 bits); 0 = closed loop at saturation.
    rate: AtomicU64,
    stop: AtomicBool,
    error: Mutex<Option<String>>,
}

/// The generator loop (peer namespace thread): open loop at `rate`, or
/// closed loop (at most WINDOW frames in flight) when the rate is 0.
fn generate(kpi: Arc<Kpi>, ns: String, frames: Vec<Vec<u8>>) {
    let run = || -> Result<(), String> {
        let f = std::fs::File::open(format!("/run/netns/{ns}")).map_err(|e| e.to_string())?;
        // SAFETY: setns on a namespace fd, for this thread only.
        if unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
            return Err(format!("setns: {}", std::io::Error::last_os_error()));
        }
        let cfg = LoadGenConfig {
            stamp: true,
            stamp_at: STAMP_AT,
            ip_id_seq: true,
            ..LoadGenConfig::default()
        };
        let mut g =
            LoadGen::with_templates("gen0", "sink0", &frames, &cfg).map_err(|e| e.to_string())?;
        const BATCH: usize = ClosedLoop::BATCH;
        let mut lat = Vec::with_capacity(BATCH);
        let mut closed = ClosedLoop::default();
        let mut rate_bits = u64::MAX;
        let (mut t0, mut sent0) = (now_ns(), 0u64);
        while !kpi.stop.load(Ordering::Relaxed) {
            let now = now_ns();
            let bits = kpi.rate.load(Ordering::Relaxed);
            if bits != rate_bits {
                rate_bits = bits;
                t0 = now;
                sent0 = g.sent;
            }
            let rate = f64::from_bits(bits);
            lat.clear();
            let (s, r) = if rate > 0.0 {
                // Open loop at `rate`; the loop still records and retires
                // the frames, so a later closed loop starts from what is
                // really in flight.
                closed.room(now);
                let due = (rate * (now - t0) as f64 / 1e9) as u64;
                let want = (due.saturating_sub(g.sent - sent0) as usize).min(BATCH);
                let s = closed.send_unpaced(&mut g, want, now);
                if s == 0 && g.tx_backlog() > 0 {
                    g.kick();
                }
                let r = closed.recv(&mut g, BATCH, Some(&mut lat));
                if s == 0 && r == 0 {
                    std::thread::sleep(Duration::from_micros(50));
                }
                (s, r)
            } else {
                // Closed loop at saturation (waits for frames when the
                // window is full; frames not back after the timeout free
                // their slots).
                closed.step(&mut g, Some(&mut lat))
            };
            kpi.sent.fetch_add(s, Ordering::Relaxed);
            if r > 0 {
                kpi.received.fetch_add(r as u64, Ordering::Relaxed);
                kpi.lat_sum_ns
                    .fetch_add(lat.iter().sum::<u64>(), Ordering::Relaxed);
                kpi.lat_n.fetch_add(lat.len() as u64, Ordering::Relaxed);
            }
        }
        Ok(())
    };
    if let Err(e) = run() {
        *kpi.error.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
    }
}

/// The private copy of the deployment `profile` serves: its own socket,
/// interfaces `dut_in`/`dut_out` (a hairpin gets a second interface),
/// object paths made absolute.
pub fn private_deployment(file: &Path, dir: &Path) -> Result<(PathBuf, Deployment), Failure> {
    let mut dep = Deployment::load(file).map_err(|e| {
        fail(
            "E0602",
            e.to_string(),
            "re-emit it with `nfc build <chain.yaml> --target flash -o DIR`",
        )
    })?;
    let base = file.parent().unwrap_or(Path::new("."));
    for nf in &mut dep.nfs {
        if nf.object.is_relative() {
            nf.object = std::fs::canonicalize(base.join(&nf.object))
                .unwrap_or_else(|_| base.join(&nf.object));
        }
    }
    dep.monitor.socket = dir.join("mon.sock");
    let ifaces = &dep.monitor.interfaces;
    let ingress = ifaces
        .iter()
        .find(|i| i.name == "in")
        .or(ifaces.first())
        .map(|i| i.name.clone());
    let Some(ingress) = ingress else {
        return Err(fail(
            "E0602",
            "the deployment has no interface".into(),
            "re-emit it with `nfc build --target flash`",
        ));
    };
    let egress = ifaces
        .iter()
        .find(|i| i.name != ingress)
        .map(|i| i.name.clone());
    let egress = match egress {
        Some(e) => e,
        None => {
            // Hairpin: every link to the ingress goes to a second interface.
            let out = "profile_out".to_string();
            for l in &mut dep.links {
                if l.to.iface.as_deref() == Some(ingress.as_str()) {
                    l.to = Endpoint {
                        nf: None,
                        iface: Some(out.clone()),
                        port: None,
                    };
                }
            }
            dep.monitor.interfaces.push(InterfaceSpec {
                name: out.clone(),
                ifname: String::new(),
                queue: 0,
            });
            out
        }
    };
    if dep.monitor.interfaces.len() > 2 {
        return Err(fail(
            "E0612",
            format!("the deployment uses {} interfaces; `nfc profile` drives one ingress and one egress", dep.monitor.interfaces.len()),
            "profile a chain with one ingress and one egress interface",
        ));
    }
    for i in &mut dep.monitor.interfaces {
        i.ifname = if i.name == ingress {
            "dut_in".into()
        } else {
            "dut_out".into()
        };
        i.queue = 0;
    }
    let _ = egress;
    let path = dir.join("deployment.json");
    std::fs::write(&path, dep.to_json())
        .map_err(|e| Failure::io(format!("writing {}", path.display()), e))?;
    Ok((path, dep))
}

/// Start `nfc run` in `ns` and wait until every NF attached.
fn serve(
    opts: &ProfileOptions,
    ns: &str,
    dep: &Path,
    nfs: usize,
    bound: f64,
) -> Result<Served, Failure> {
    let mut last = String::new();
    for _ in 0..6 {
        let mut child = Command::new("ip")
            .args(["netns", "exec", ns])
            .arg(&opts.nfc_exe)
            .arg("run")
            .arg(dep)
            .args(["--duration", &format!("{bound:.0}")])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| Failure::io("starting `nfc run`", e))?;
        let stderr = child.stderr.take().expect("piped");
        let served = Served(child, Arc::default());
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stderr)
                .lines()
                .map_while(Result::ok)
            {
                if tx.send(line).is_err() {
                    // Keep draining so `nfc run` never blocks on a full pipe.
                    continue;
                }
            }
        });
        let mut attached = 0;
        let mut log = vec![];
        while attached < nfs {
            match rx.recv_timeout(Duration::from_secs(30)) {
                Ok(l) if l.contains("attached NF") => attached += 1,
                Ok(l) => log.push(l),
                Err(_) => break,
            }
        }
        if attached == nfs {
            // Later lines (an NF host that ended, ...) go into the report.
            let later = served.1.clone();
            std::thread::spawn(move || {
                while let Ok(l) = rx.recv() {
                    // The hosts' own attach lines are not news.
                    if l.contains("` attached (pid") {
                        continue;
                    }
                    let mut v = later.lock().unwrap_or_else(|p| p.into_inner());
                    if v.len() < 100 {
                        v.push(l);
                    }
                }
            });
            return Ok(served);
        }
        last = log.join("\n");
        drop(served);
        std::thread::sleep(Duration::from_millis(500));
    }
    Err(Failure::Internal {
        stage: "profile",
        message: format!("the chain's NFs did not attach:\n{last}"),
    })
}

/// Profile the deployment at `path` into `out` (nfc's counter CSV).
pub fn profile(
    path: &Path,
    opts: &ProfileOptions,
    out: &mut dyn Write,
    stop: &AtomicBool,
    log: &mut dyn FnMut(String),
) -> Result<ProfileReport, Failure> {
    let file = crate::online::deployment_file(path).ok_or_else(|| {
        fail(
            "E0600",
            format!("{} is not a flash deployment", path.display()),
            "give the directory `nfc build --target flash -o DIR` wrote, or its deployment.json",
        )
    })?;
    // SAFETY: geteuid never fails.
    if unsafe { libc::geteuid() } != 0 {
        return Err(fail(
            "E0601",
            "profiling a flash deployment needs root: it creates network namespaces, runs the chain and reads its counters".into(),
            "run `nfc profile` as root",
        ));
    }
    if matches!(opts.stimulus, Stimulus::Resource | Stimulus::Both)
        && Command::new("stress-ng")
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_err()
    {
        return Err(fail(
            "E0613",
            "stress-ng is not installed: the resource stimulus runs it".into(),
            "install it with `cargo xtask setup` (apt package stress-ng)",
        ));
    }
    let mut created = vec![];
    let work = PathBuf::from(format!("/tmp/nfc-profile-{}", opts.tag));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir(&work)
        .map_err(|e| Failure::io(format!("creating {}", work.display()), e))?;
    struct RmDir(PathBuf);
    impl Drop for RmDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
    let _work_guard = RmDir(work.clone());
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(&work, std::fs::Permissions::from_mode(0o755));
    }
    created.push(format!("directory {}", work.display()));
    let (dep_file, dep) = private_deployment(&file, &work)?;
    // Namespaces (field order = drop order: the served chain goes first).
    let dut = NetNs::new(format!("nfcpd{}", opts.tag))?;
    let peer = NetNs::new(format!("nfcpp{}", opts.tag))?;
    created.push(format!("netns {}", dut.0));
    created.push(format!("netns {}", peer.0));
    for (a, b) in [("gen0", "dut_in"), ("sink0", "dut_out")] {
        ip(&[
            "-n", &peer.0, "link", "add", a, "type", "veth", "peer", "name", b, "netns", &dut.0,
        ])?;
        ip(&["-n", &peer.0, "link", "set", a, "up"])?;
        ip(&["-n", &dut.0, "link", "set", b, "up"])?;
    }
    let calib = 3.0;
    let bound = calib + opts.duration + 30.0;
    log(format!(
        "namespaces {} and {}; starting the chain",
        dut.0, peer.0
    ));
    let served = serve(opts, &dut.0, &dep_file, dep.nfs.len(), bound)?;
    created.push("nfc run (monitor, XDP programs, NF hosts) in the DUT namespace".into());
    let mut sampler = Sampler::attach(&dep_file)?;
    let pids: Vec<u32> = sampler.hosts().iter().map(|(_, p)| *p).collect();
    let mut cpus: Vec<usize> = pids.iter().flat_map(|&p| cpus_of(p)).collect();
    cpus.sort_unstable();
    cpus.dedup();
    let unsupported: Vec<(String, String)> = sampler
        .unsupported()
        .into_iter()
        .map(|(n, w)| (n.to_string(), w))
        .collect();
    for (n, w) in &unsupported {
        log(format!("counter `{n}` not supported: {w}"));
    }
    let columns = sampler.columns();
    let mut header = vec![
        "input_rate".to_string(),
        "output_rate".to_string(),
        "latency".to_string(),
    ];
    header.extend(columns.iter().cloned());
    writeln!(out, "{}", header.join(",")).map_err(|e| Failure::io("writing the dataset", e))?;
    // The generator.
    let kpi = Arc::new(Kpi::default());
    // The traffic: a synthetic profile of many flows (1024 flows, 80% TCP /
    // 20% UDP, Zipf 1.0 over nfc's default prefixes), one UMEM frame each,
    // padded so the stamp fits in the payload.
    let spec = nfc_core::chain::TrafficSpec {
        flows: 1024,
        packets: 4096,
        sizes: nfc_core::chain::SizeMix::Fixed(opts.frame_len as u32),
        seed: opts.seed,
        ..Default::default()
    };
    let (packets, _) = flash_rt::trace::generate_packets(&spec).map_err(|e| Failure::Internal {
        stage: "profile",
        message: format!("generating the traffic: {e}"),
    })?;
    let frames: Vec<Vec<u8>> = packets
        .iter()
        .map(|p| {
            let mut f = p.data.to_vec();
            if f.len() < STAMP_AT + 16 {
                f.resize(STAMP_AT + 16, 0);
            }
            f
        })
        .collect();
    let gen = {
        let (k, ns) = (kpi.clone(), peer.0.clone());
        std::thread::spawn(move || generate(k, ns, frames))
    };
    struct StopGen(Arc<Kpi>, Option<std::thread::JoinHandle<()>>);
    impl Drop for StopGen {
        fn drop(&mut self) {
            self.0.stop.store(true, Ordering::Relaxed);
            if let Some(h) = self.1.take() {
                let _ = h.join();
            }
        }
    }
    let gen_guard = StopGen(kpi.clone(), Some(gen));
    let gen_error = |k: &Kpi| k.error.lock().unwrap_or_else(|p| p.into_inner()).clone();
    // Calibration: the generator as fast as it can send (open loop; a
    // closed loop would stall on an NF that drops, e.g. a policer), the
    // chain's saturation rate is what comes out.
    kpi.rate.store(1e9f64.to_bits(), Ordering::Relaxed);
    std::thread::sleep(Duration::from_secs_f64(calib / 3.0));
    let r0 = kpi.received.load(Ordering::Relaxed);
    let t0 = Instant::now();
    std::thread::sleep(Duration::from_secs_f64(calib * 2.0 / 3.0));
    if let Some(e) = gen_error(&kpi) {
        return Err(Failure::Internal {
            stage: "profile: load generator",
            message: e,
        });
    }
    let saturation =
        (kpi.received.load(Ordering::Relaxed) - r0) as f64 / t0.elapsed().as_secs_f64();
    log(format!(
        "saturation (generator at full speed): {saturation:.0} packets/s out"
    ));
    if saturation <= 0.0 {
        return Err(Failure::Internal {
            stage: "profile",
            message: "no packet came through the chain during calibration".into(),
        });
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(opts.seed);
    let scratch = work.join("stress");
    let _ = std::fs::create_dir(&scratch);
    let phases = (opts.duration / opts.phase).ceil().max(1.0) as usize;
    let mut records = vec![];
    let mut rows = 0;
    let mut stopped_early = false;
    let mut last = (
        kpi.sent.load(Ordering::Relaxed),
        kpi.received.load(Ordering::Relaxed),
        kpi.lat_sum_ns.load(Ordering::Relaxed),
        kpi.lat_n.load(Ordering::Relaxed),
    );
    sampler.sample_counters();
    let mut t_last = Instant::now();
    'phases: for p in 0..phases {
        let random_rate = rng.gen_bool(0.5);
        let (load_desc, fixed_rate) = match opts.stimulus {
            Stimulus::Resource => ("0.6x saturation".to_string(), Some(0.6 * saturation)),
            _ => {
                if random_rate {
                    ("random rate per period".to_string(), None)
                } else {
                    let f = rng.gen_range(0.1..1.2);
                    (format!("{f:.2}x saturation"), Some(f * saturation))
                }
            }
        };
        let resource = match opts.stimulus {
            Stimulus::Load => Resource::None,
            _ => match rng.gen_range(0..5) {
                0 => Resource::None,
                1 => Resource::Cpu,
                2 => Resource::Cache,
                3 => Resource::Memory,
                _ => Resource::Quota(rng.gen_range(0.1..0.6)),
            },
        };
        log(format!(
            "phase {}/{phases}: load {load_desc}, resource {}",
            p + 1,
            resource.describe()
        ));
        let held = start_resource(resource, opts, &pids, &cpus, &scratch)?;
        let mut rec = PhaseRecord {
            load: load_desc,
            resource: resource.describe(),
            rows: 0,
            sent: 0,
            received: 0,
        };
        let periods = (opts.phase / opts.period).round().max(1.0) as usize;
        for _ in 0..periods {
            let rate = fixed_rate.unwrap_or_else(|| rng.gen_range(0.05..1.2) * saturation);
            kpi.rate.store(rate.max(1.0).to_bits(), Ordering::Relaxed);
            let deadline = t_last + Duration::from_secs_f64(opts.period);
            while Instant::now() < deadline {
                if stop.load(Ordering::Relaxed) {
                    stopped_early = true;
                    drop(held);
                    break 'phases;
                }
                std::thread::sleep(
                    Duration::from_millis(10)
                        .min(deadline.saturating_duration_since(Instant::now())),
                );
            }
            let counters = sampler.sample_counters();
            let now = Instant::now();
            let secs = now.duration_since(t_last).as_secs_f64();
            t_last = now;
            let cur = (
                kpi.sent.load(Ordering::Relaxed),
                kpi.received.load(Ordering::Relaxed),
                kpi.lat_sum_ns.load(Ordering::Relaxed),
                kpi.lat_n.load(Ordering::Relaxed),
            );
            let (ds, dr, dl, dn) = (
                cur.0 - last.0,
                cur.1 - last.1,
                cur.2 - last.2,
                cur.3 - last.3,
            );
            last = cur;
            let latency = if dn > 0 {
                (dl as f64 / dn as f64 / 1e3).min(NO_PROBE_RETURNED)
            } else if ds > 0 {
                NO_PROBE_RETURNED
            } else {
                0.0
            };
            let mut cells = vec![
                cell(ds as f64 / secs),
                cell(dr as f64 / secs),
                cell(latency),
            ];
            cells.extend(counters.iter().map(|v| cell(*v)));
            writeln!(out, "{}", cells.join(","))
                .map_err(|e| Failure::io("writing the dataset", e))?;
            rows += 1;
            rec.rows += 1;
            rec.sent += ds;
            rec.received += dr;
            if let Some(e) = gen_error(&kpi) {
                return Err(Failure::Internal {
                    stage: "profile: load generator",
                    message: e,
                });
            }
        }
        drop(held);
        records.push(rec);
    }
    out.flush()
        .map_err(|e| Failure::io("writing the dataset", e))?;
    drop(gen_guard);
    let runtime_messages = std::mem::take(&mut *served.1.lock().unwrap_or_else(|p| p.into_inner()));
    for m in &runtime_messages {
        log(format!("nfc run: {m}"));
    }
    drop(served);
    drop(peer);
    drop(dut);
    Ok(ProfileReport {
        deployment: dep.name.clone(),
        stimulus: format!("{:?}", opts.stimulus).to_lowercase(),
        rows,
        columns,
        unsupported,
        saturation_pps: saturation,
        phases: records,
        stopped_early,
        created,
        runtime_messages,
    })
}
