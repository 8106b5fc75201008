//! Per-NF-host counters for performance prediction (INFOCOM'24, seed 003
//! §III): `perf_event_open` counters of every thread of an NF host process
//! and its scheduler run delay (`/proc/<pid>/task/<tid>/schedstat`), read
//! from outside the process — nothing here touches the data path. The
//! counters keep counting in the kernel between samples; a sample is a
//! `read` per counter and a schedstat read per thread.
//!
//! The hardware events are the paper's (instructions, cycles, branches,
//! cache references and misses, LLC loads and stores, L1-dcache load
//! misses). A CPU without a PMU (this VM) refuses them at open time
//! (`ENOENT`/`EOPNOTSUPP`/`ENODEV`): they are reported as not supported,
//! with the errno, and get no column — never a zero or an estimate. The
//! software events (task-clock, context switches, CPU migrations, page
//! faults) and the run delay exist everywhere.
//!
//! A [`Sample`] holds rates per second since the previous sample, per NF
//! and counter, in the column order of [`Collector::columns`]
//! (`<nf>_<counter>`, nfc's counter-CSV schema that `nfc-predictor` reads).
//! Counts are scaled by `time_enabled / time_running` when the kernel
//! multiplexed a counter.

use std::collections::BTreeMap;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::Path;
use std::time::Instant;

const PERF_TYPE_HARDWARE: u32 = 0;
const PERF_TYPE_SOFTWARE: u32 = 1;
const PERF_TYPE_HW_CACHE: u32 = 3;
const PERF_FORMAT_TOTAL_TIME_ENABLED: u64 = 1;
const PERF_FORMAT_TOTAL_TIME_RUNNING: u64 = 2;
const PERF_FLAG_FD_CLOEXEC: libc::c_ulong = 8;
/// `perf_event_attr` bit flags. No `inherit`: every thread gets counters of
/// its own (threads started later are found at the next sample), so none is
/// counted twice.
const ATTR_EXCLUDE_KERNEL: u64 = 1 << 5;
const ATTR_EXCLUDE_HV: u64 = 1 << 6;

const fn hw_cache(cache: u64, op: u64, result: u64) -> u64 {
    cache | (op << 8) | (result << 16)
}

/// What one counter measures and where it comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventSpec {
    /// The column suffix (perf's event name).
    pub name: &'static str,
    /// Hardware (needs a PMU) or software (kernel) event.
    pub hardware: bool,
    kind: EventKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EventKind {
    Perf {
        type_: u32,
        config: u64,
    },
    /// Sum of `/proc/<pid>/task/*/schedstat` field 2 (ns waiting on a run queue).
    RunDelay,
}

const fn perf(name: &'static str, hardware: bool, type_: u32, config: u64) -> EventSpec {
    EventSpec {
        name,
        hardware,
        kind: EventKind::Perf { type_, config },
    }
}

/// Every counter the collector tries, in column order.
pub const EVENTS: &[EventSpec] = &[
    perf("instructions", true, PERF_TYPE_HARDWARE, 1),
    perf("cycles", true, PERF_TYPE_HARDWARE, 0),
    perf("branches", true, PERF_TYPE_HARDWARE, 4),
    perf("branch-misses", true, PERF_TYPE_HARDWARE, 5),
    perf("cache-references", true, PERF_TYPE_HARDWARE, 2),
    perf("cache-misses", true, PERF_TYPE_HARDWARE, 3),
    // LL cache (2), op read (0) / write (1), result access (0).
    perf("LLC-loads", true, PERF_TYPE_HW_CACHE, hw_cache(2, 0, 0)),
    perf("LLC-stores", true, PERF_TYPE_HW_CACHE, hw_cache(2, 1, 0)),
    // L1D (0), op read (0), result miss (1).
    perf(
        "L1-dcache-load-misses",
        true,
        PERF_TYPE_HW_CACHE,
        hw_cache(0, 0, 1),
    ),
    perf("task-clock", false, PERF_TYPE_SOFTWARE, 1),
    perf("context-switches", false, PERF_TYPE_SOFTWARE, 3),
    perf("cpu-migrations", false, PERF_TYPE_SOFTWARE, 4),
    perf("page-faults", false, PERF_TYPE_SOFTWARE, 2),
    EventSpec {
        name: "run-delay",
        hardware: false,
        kind: EventKind::RunDelay,
    },
];

/// `struct perf_event_attr` up to PERF_ATTR_SIZE_VER5 (112 bytes).
#[repr(C)]
#[derive(Default)]
struct PerfEventAttr {
    type_: u32,
    size: u32,
    config: u64,
    sample_period: u64,
    sample_type: u64,
    read_format: u64,
    flags: u64,
    wakeup_events: u32,
    bp_type: u32,
    config1: u64,
    config2: u64,
    branch_sample_type: u64,
    sample_regs_user: u64,
    sample_stack_user: u32,
    clockid: i32,
    sample_regs_intr: u64,
    aux_watermark: u32,
    sample_max_stack: u16,
    reserved: u16,
}

const _: () = assert!(std::mem::size_of::<PerfEventAttr>() == 112);

/// Open one counting (not sampling) event on thread `tid`.
fn perf_open(type_: u32, config: u64, tid: i32, exclude_kernel: bool) -> std::io::Result<OwnedFd> {
    let mut flags = ATTR_EXCLUDE_HV;
    if exclude_kernel {
        flags |= ATTR_EXCLUDE_KERNEL;
    }
    let attr = PerfEventAttr {
        type_,
        size: std::mem::size_of::<PerfEventAttr>() as u32,
        config,
        read_format: PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING,
        flags,
        ..Default::default()
    };
    // SAFETY: attr is a valid perf_event_attr of the size it states; the
    // kernel returns a new fd or -1.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_perf_event_open,
            &attr as *const PerfEventAttr,
            tid as libc::pid_t,
            -1 as libc::c_int,
            -1 as libc::c_int,
            PERF_FLAG_FD_CLOEXEC,
        )
    };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: a fresh fd the kernel just returned, owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as i32) })
}

/// Value of a counting event, scaled for multiplexing.
fn perf_read(fd: &OwnedFd) -> Option<f64> {
    let mut buf = [0u64; 3];
    // SAFETY: reading at most 24 bytes into a 24-byte buffer.
    let n = unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), 24) };
    if n != 24 {
        return None;
    }
    let (value, enabled, running) = (buf[0] as f64, buf[1] as f64, buf[2] as f64);
    Some(if running > 0.0 && running < enabled {
        value * enabled / running
    } else {
        value
    })
}

/// Whether this machine gives a counter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Support {
    Supported,
    /// Why not (the errno of the open, or the missing file).
    NotSupported(String),
}

/// One process to watch: the host of NF `nf`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub nf: String,
    pub pid: u32,
}

/// Errors of the collector.
#[derive(Debug, thiserror::Error)]
pub enum CounterError {
    #[error("no NF host process to watch")]
    NoTargets,
    #[error("NF `{nf}`: process {pid} is gone")]
    Gone { nf: String, pid: u32 },
    #[error("perf_event_open is not permitted here ({0}); run as root or lower kernel.perf_event_paranoid")]
    NotPermitted(std::io::Error),
}

struct Thread {
    fds: Vec<Option<OwnedFd>>,
    /// Last raw value per event (perf and run delay).
    last: Vec<f64>,
    seen: bool,
}

struct Host {
    target: Target,
    threads: BTreeMap<i32, Thread>,
    /// Final counts of exited threads not yet in a sample.
    exited: Vec<f64>,
}

/// Counters of a set of NF host processes.
pub struct Collector {
    hosts: Vec<Host>,
    support: Vec<Support>,
    exclude_kernel: bool,
    last_at: Instant,
}

impl std::fmt::Debug for Collector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Collector")
            .field(
                "hosts",
                &self.hosts.iter().map(|h| &h.target).collect::<Vec<_>>(),
            )
            .field("support", &self.support)
            .finish()
    }
}

/// One sample: rates per second since the previous one.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// Seconds the sample covers.
    pub interval: f64,
    /// In the order of [`Collector::columns`].
    pub values: Vec<f64>,
}

fn tids(pid: u32) -> Option<Vec<i32>> {
    let dir = std::fs::read_dir(format!("/proc/{pid}/task")).ok()?;
    let mut v: Vec<i32> = dir
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .collect();
    v.sort_unstable();
    Some(v)
}

/// Nanoseconds thread `tid` of `pid` has waited on a run queue.
fn run_delay(pid: u32, tid: i32) -> Option<f64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/schedstat")).ok()?;
    s.split_whitespace().nth(1)?.parse().ok()
}

impl Collector {
    /// Open every counter on every thread of every target. Which events
    /// this machine supports is decided on the first thread (a PMU-less
    /// CPU refuses every hardware event for every thread alike).
    pub fn open(targets: &[Target]) -> Result<Collector, CounterError> {
        Self::open_with(targets, true)
    }

    /// [`Collector::open`]; with `perf` false no perf event is opened
    /// (schedstat only: every perf counter is reported as turned off).
    pub fn open_with(targets: &[Target], perf: bool) -> Result<Collector, CounterError> {
        let first = targets.first().ok_or(CounterError::NoTargets)?;
        let first_tid = *tids(first.pid)
            .and_then(|t| t.first().copied())
            .as_ref()
            .ok_or_else(|| CounterError::Gone {
                nf: first.nf.clone(),
                pid: first.pid,
            })?;
        let mut exclude_kernel = false;
        let mut support = vec![];
        for ev in EVENTS {
            support.push(match ev.kind {
                EventKind::RunDelay => {
                    if run_delay(first.pid, first_tid).is_some() {
                        Support::Supported
                    } else {
                        Support::NotSupported(
                            "no /proc/<pid>/schedstat (CONFIG_SCHEDSTATS off)".into(),
                        )
                    }
                }
                EventKind::Perf { .. } if !perf => {
                    Support::NotSupported("turned off (schedstat only)".into())
                }
                EventKind::Perf { type_, config } => {
                    let mut r = perf_open(type_, config, first_tid, exclude_kernel);
                    if matches!(&r, Err(e) if e.raw_os_error() == Some(libc::EACCES))
                        && !exclude_kernel
                    {
                        // Unprivileged under perf_event_paranoid 2: user space only.
                        exclude_kernel = true;
                        r = perf_open(type_, config, first_tid, true);
                    }
                    match r {
                        Ok(_) => Support::Supported,
                        Err(e) => match e.raw_os_error() {
                            Some(libc::EACCES) | Some(libc::EPERM) if !ev.hardware => {
                                return Err(CounterError::NotPermitted(e))
                            }
                            Some(libc::ENOENT)
                            | Some(libc::EOPNOTSUPP)
                            | Some(libc::ENODEV)
                            | Some(libc::EINVAL) => {
                                Support::NotSupported(format!("not supported by this CPU ({e})"))
                            }
                            _ => Support::NotSupported(e.to_string()),
                        },
                    }
                }
            });
        }
        let mut c = Collector {
            hosts: targets
                .iter()
                .map(|t| Host {
                    target: t.clone(),
                    threads: BTreeMap::new(),
                    exited: vec![0.0; EVENTS.len()],
                })
                .collect(),
            support,
            exclude_kernel,
            last_at: Instant::now(),
        };
        for h in 0..c.hosts.len() {
            if !c.refresh_threads(h) {
                let t = &c.hosts[h].target;
                return Err(CounterError::Gone {
                    nf: t.nf.clone(),
                    pid: t.pid,
                });
            }
        }
        c.last_at = Instant::now();
        Ok(c)
    }

    /// Every event with whether this machine gives it.
    pub fn support(&self) -> Vec<(&'static EventSpec, &Support)> {
        EVENTS.iter().zip(&self.support).collect()
    }

    /// The events that get a column.
    fn supported(&self) -> impl Iterator<Item = usize> + '_ {
        (0..EVENTS.len()).filter(|&e| self.support[e] == Support::Supported)
    }

    /// `<nf>_<counter>` for every target and supported event.
    pub fn columns(&self) -> Vec<String> {
        let mut cols = vec![];
        for h in &self.hosts {
            for e in self.supported() {
                cols.push(format!("{}_{}", h.target.nf, EVENTS[e].name));
            }
        }
        cols
    }

    /// The targets, in column order.
    pub fn targets(&self) -> Vec<&Target> {
        self.hosts.iter().map(|h| &h.target).collect()
    }

    fn read_event(&self, fds: &[Option<OwnedFd>], pid: u32, tid: i32, e: usize) -> Option<f64> {
        match EVENTS[e].kind {
            EventKind::RunDelay => run_delay(pid, tid),
            EventKind::Perf { .. } => fds[e].as_ref().and_then(perf_read),
        }
    }

    /// Open counters on threads not seen yet; false when the process is gone.
    fn refresh_threads(&mut self, h: usize) -> bool {
        let pid = self.hosts[h].target.pid;
        let Some(now) = tids(pid) else {
            return false;
        };
        for t in self.hosts[h].threads.values_mut() {
            t.seen = false;
        }
        for tid in now {
            if let Some(t) = self.hosts[h].threads.get_mut(&tid) {
                t.seen = true;
                continue;
            }
            let fds: Vec<Option<OwnedFd>> = EVENTS
                .iter()
                .enumerate()
                .map(|(e, ev)| match (ev.kind, &self.support[e]) {
                    (EventKind::Perf { type_, config }, Support::Supported) => {
                        perf_open(type_, config, tid, self.exclude_kernel).ok()
                    }
                    _ => None,
                })
                .collect();
            let last = (0..EVENTS.len())
                .map(|e| self.read_event(&fds, pid, tid, e).unwrap_or(0.0))
                .collect();
            self.hosts[h].threads.insert(
                tid,
                Thread {
                    fds,
                    last,
                    seen: true,
                },
            );
        }
        true
    }

    /// Read every counter: rates per second since the previous sample (or
    /// since `open`). A host that has exited contributes what its threads
    /// counted before they went, then zeros.
    pub fn sample(&mut self) -> Sample {
        let now = Instant::now();
        let interval = now.duration_since(self.last_at).as_secs_f64().max(1e-9);
        self.last_at = now;
        let supported: Vec<usize> = self.supported().collect();
        let mut values = Vec::with_capacity(self.hosts.len() * supported.len());
        for h in 0..self.hosts.len() {
            let pid = self.hosts[h].target.pid;
            let mut delta = std::mem::replace(&mut self.hosts[h].exited, vec![0.0; EVENTS.len()]);
            let mut gone = vec![];
            let ids: Vec<i32> = self.hosts[h].threads.keys().copied().collect();
            for tid in ids {
                let reads: Vec<Option<f64>> = {
                    let t = &self.hosts[h].threads[&tid];
                    (0..EVENTS.len())
                        .map(|e| self.read_event(&t.fds, pid, tid, e))
                        .collect()
                };
                let t = self.hosts[h].threads.get_mut(&tid).expect("listed above");
                for (e, r) in reads.into_iter().enumerate() {
                    if let Some(v) = r {
                        delta[e] += (v - t.last[e]).max(0.0);
                        t.last[e] = v;
                    }
                }
                if !Path::new(&format!("/proc/{pid}/task/{tid}")).exists() {
                    gone.push(tid);
                }
            }
            for tid in gone {
                self.hosts[h].threads.remove(&tid);
            }
            // Threads started since: counted from now on.
            self.refresh_threads(h);
            for &e in &supported {
                values.push(delta[e] / interval);
            }
        }
        Sample { interval, values }
    }
}

/// Packets into and out of a running chain, from the monitor's stats
/// (`Request::Stats`): the sum over NFs of `rx_iface` and of `tx_iface`.
pub fn chain_packets(stats: &serde_json::Value) -> (u64, u64) {
    let mut rx = 0;
    let mut tx = 0;
    for nf in stats["nfs"].as_array().into_iter().flatten() {
        rx += nf["counters"]["rx_iface"].as_u64().unwrap_or(0);
        tx += nf["counters"]["tx_iface"].as_u64().unwrap_or(0);
    }
    (rx, tx)
}

/// NF id and host pid of every attached NF in the monitor's stats.
pub fn targets_from_stats(stats: &serde_json::Value) -> Vec<Target> {
    stats["nfs"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|nf| {
            let pid = nf["pid"].as_u64()? as u32;
            let id = nf["id"].as_str()?.to_string();
            (pid != 0).then_some(Target { nf: id, pid })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn software_counters_count_this_process_and_hardware_ones_are_reported() {
        let me = Target {
            nf: "self".into(),
            pid: std::process::id(),
        };
        let mut c = match Collector::open(&[me]) {
            Ok(c) => c,
            Err(CounterError::NotPermitted(e)) => {
                eprintln!("SKIPPED: perf_event_open not permitted ({e})");
                return;
            }
            Err(e) => panic!("{e}"),
        };
        // Every event is either a column or reported with a reason.
        let cols = c.columns();
        for (ev, s) in c.support() {
            let named = cols.contains(&format!("self_{}", ev.name));
            assert_eq!(named, *s == Support::Supported, "{}: {s:?}", ev.name);
        }
        let tc = cols
            .iter()
            .position(|c| c == "self_task-clock")
            .expect("task-clock is a software event");
        // Burn CPU on this thread. The process's task-clock over the
        // interval must hold at least this thread's own CPU time and at
        // most the whole process's: bounds from the kernel's own clocks,
        // whatever the other test threads do meanwhile (a comparison with
        // an idle interval is not: a test running beside this one fills it).
        let process0 = cpu_ns(libc::CLOCK_PROCESS_CPUTIME_ID);
        let _ = c.sample();
        let thread0 = cpu_ns(libc::CLOCK_THREAD_CPUTIME_ID);
        let t0 = Instant::now();
        let mut x = 0u64;
        while t0.elapsed().as_millis() < 200 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
        }
        std::hint::black_box(x);
        let thread1 = cpu_ns(libc::CLOCK_THREAD_CPUTIME_ID);
        let s = c.sample();
        let process1 = cpu_ns(libc::CLOCK_PROCESS_CPUTIME_ID);
        // Values are per second of the interval: times it, nanoseconds.
        let counted = s.values[tc] * s.interval;
        let own = thread1 - thread0;
        assert!(own > 0.05e9, "the spin used {own} ns of CPU");
        // Slack of 2% and 5 ms: the clocks are read just outside the samples.
        assert!(
            counted >= own * 0.98 - 5e6,
            "task-clock counted {counted} ns, this thread alone used {own} ns"
        );
        assert!(
            counted <= (process1 - process0) * 1.02 + 5e6,
            "task-clock counted {counted} ns, the whole process used {} ns",
            process1 - process0
        );
    }

    /// A kernel CPU-time clock, in nanoseconds.
    fn cpu_ns(clock: libc::clockid_t) -> f64 {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid, writable timespec.
        let rc = unsafe { libc::clock_gettime(clock, &mut ts) };
        assert_eq!(rc, 0, "clock_gettime");
        ts.tv_sec as f64 * 1e9 + ts.tv_nsec as f64
    }

    #[test]
    fn stats_give_targets_and_packets() {
        let stats = serde_json::json!({"nfs": [
            {"id": "a", "pid": 10, "counters": {"rx_iface": 5, "tx_iface": 0}},
            {"id": "b", "pid": 0, "counters": {"rx_iface": 0, "tx_iface": 4}},
        ]});
        assert_eq!(chain_packets(&stats), (5, 4));
        assert_eq!(
            targets_from_stats(&stats),
            vec![Target {
                nf: "a".into(),
                pid: 10
            }]
        );
    }

    #[test]
    fn a_missing_process_is_an_error_not_a_panic() {
        let r = Collector::open(&[Target {
            nf: "x".into(),
            pid: u32::MAX - 1,
        }]);
        assert!(matches!(r, Err(CounterError::Gone { .. })));
        assert!(matches!(Collector::open(&[]), Err(CounterError::NoTargets)));
    }
}
