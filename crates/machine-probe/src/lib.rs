//! How fast this machine runs NF-like work *right now*: a short, bounded
//! probe the flash cost model is calibrated with (`src/prediction.rs`).
//!
//! A chain's throughput on flash-rt depends on the machine's state as much
//! as on the chain: the same chain measured 60k pps with four other builds
//! running and 500k on a quiet machine (docs/predictor.md). The probe
//! measures that state the way the NF hosts feel it: one thread per CPU
//! this process may use, each doing a fixed unit of NF-like work (hash
//! steps with dependent loads and stores into a 1 MiB table, as a flow
//! table lookup does) for a wall-clock window, counting the units done.
//! Its result, wall-clock nanoseconds per unit per thread, grows when the
//! CPUs are shared with other work (less CPU time per wall second) and
//! when their caches are (more time per unit of CPU time); both parts are
//! reported.
//!
//! **Invariant:** the kernel is compiled at the same optimisation level in
//! every build profile (`[profile.dev.package.nfc-machine-probe]` in the
//! root Cargo.toml), so a debug and a release `nfc` read the same machine
//! alike; the unit's work never changes without a new [`PROBE_VERSION`].

use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// Version of the unit of work; a model calibrated with another version
/// cannot use this probe's numbers.
pub const PROBE_VERSION: u32 = 1;

/// Hash steps per unit of work.
const STEPS: usize = 4096;
/// Table entries (u32): 1 MiB, beyond L2, within a shared LLC.
const TABLE: usize = 1 << 18;

/// One probe of the machine.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MachineProbe {
    /// [`PROBE_VERSION`] of the unit measured.
    pub version: u32,
    /// Wall-clock ns per unit of work per thread (the machine's speed as
    /// a runnable thread sees it; larger is slower).
    pub ns_per_unit: f64,
    /// CPU-time ns per unit (the CPU's and caches' speed alone).
    pub cpu_ns_per_unit: f64,
    /// Share of the wall time the probe's threads were on a CPU (1 on an
    /// idle machine).
    pub cpu_share: f64,
    /// Threads run (one per CPU the process may use).
    pub threads: usize,
    /// Units done in total.
    pub units: u64,
    /// The wall-clock window, seconds.
    pub window_s: f64,
    /// `/proc/loadavg`'s 1-minute figure at the end, when readable.
    pub loadavg_1m: Option<f64>,
}

/// One unit: [`STEPS`] dependent hash steps with a load and a store each.
#[inline(never)]
fn unit(table: &mut [u32], mut x: u32) -> u32 {
    for _ in 0..STEPS {
        // xorshift32, then a dependent read-modify-write.
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        let i = (x as usize) & (TABLE - 1);
        let v = table[i].wrapping_add(x);
        table[i] = v;
        x ^= v.rotate_left(7);
    }
    x
}

fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid timespec out-pointer; CLOCK_THREAD_CPUTIME_ID always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Work for `window` on `threads` threads (at least one; the window is
/// clamped to 10 ms – 5 s) and report the machine's speed.
pub fn probe(window: Duration, threads: usize) -> MachineProbe {
    let window = window.clamp(Duration::from_millis(10), Duration::from_secs(5));
    let threads = threads.max(1);
    let start = Instant::now();
    let deadline = start + window;
    let per_thread: Vec<(u64, u64)> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..threads)
            .map(|t| {
                s.spawn(move || {
                    let mut table = vec![0u32; TABLE];
                    let mut x = 0x9e37_79b9u32 ^ (t as u32 + 1);
                    // Touch the table once, untimed by the count.
                    x = unit(&mut table, x);
                    let cpu0 = thread_cpu_ns();
                    let mut units = 0u64;
                    while Instant::now() < deadline {
                        x = unit(&mut table, x);
                        units += 1;
                    }
                    std::hint::black_box(x);
                    (units, thread_cpu_ns() - cpu0)
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap_or((0, 0))).collect()
    });
    let wall = start.elapsed().as_nanos() as f64;
    let units: u64 = per_thread.iter().map(|p| p.0).sum();
    let cpu: u64 = per_thread.iter().map(|p| p.1).sum();
    let u = units.max(1) as f64;
    MachineProbe {
        version: PROBE_VERSION,
        ns_per_unit: wall * threads as f64 / u,
        cpu_ns_per_unit: cpu as f64 / u,
        cpu_share: cpu as f64 / (wall * threads as f64),
        threads,
        units,
        window_s: wall / 1e9,
        loadavg_1m: std::fs::read_to_string("/proc/loadavg")
            .ok()
            .and_then(|s| s.split_whitespace().next()?.parse().ok()),
    }
}

/// [`probe`] on one thread per CPU this process may run on.
pub fn probe_cpus(window: Duration) -> MachineProbe {
    let n = std::thread::available_parallelism().map_or(1, |n| n.get());
    probe(window, n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_probe_counts_work_and_its_parts_agree() {
        let p = probe(Duration::from_millis(50), 1);
        assert!(p.units > 0 && p.ns_per_unit > 0.0, "{p:?}");
        // Wall time per unit is at least CPU time per unit.
        assert!(p.cpu_ns_per_unit <= p.ns_per_unit * 1.05, "{p:?}");
        assert!(p.cpu_share > 0.0 && p.cpu_share <= 1.05, "{p:?}");
        assert!((p.window_s - 0.05).abs() < 0.05, "{p:?}");
    }

    #[test]
    fn a_competing_thread_on_the_same_cpu_slows_the_probe() {
        // Pin this thread to one CPU, measure alone, then with a spinning
        // neighbour pinned there too: a runnable competitor halves the CPU
        // time the probe gets, which the wall-clock figure must show.
        let cpu = {
            // SAFETY: sched_getcpu has no preconditions.
            let c = unsafe { libc::sched_getcpu() };
            if c < 0 {
                return;
            }
            c as usize
        };
        let pin = |cpu: usize| {
            // SAFETY: a zeroed cpu_set_t with one bit set, for this thread.
            unsafe {
                let mut set: libc::cpu_set_t = std::mem::zeroed();
                libc::CPU_SET(cpu, &mut set);
                libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0
            }
        };
        // Three tries: other tenants of this machine move between CPUs,
        // so a single comparison can catch the alone run already shared.
        let mut seen = vec![];
        for _ in 0..3 {
            let stop = std::sync::atomic::AtomicBool::new(false);
            let pair = std::thread::scope(|s| {
                let alone = s
                    .spawn(|| pin(cpu).then(|| probe(Duration::from_millis(200), 1)))
                    .join()
                    .unwrap()?;
                let spinner = s.spawn(|| {
                    pin(cpu);
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        std::hint::spin_loop();
                    }
                });
                let shared = s
                    .spawn(|| {
                        pin(cpu);
                        probe(Duration::from_millis(200), 1)
                    })
                    .join()
                    .unwrap();
                stop.store(true, std::sync::atomic::Ordering::Relaxed);
                spinner.join().unwrap();
                Some((alone, shared))
            });
            let Some((alone, shared)) = pair else {
                eprintln!("SKIPPED: cannot pin a thread to CPU {cpu}");
                return;
            };
            if shared.ns_per_unit > 1.25 * alone.ns_per_unit
                && shared.cpu_share < 0.9 * alone.cpu_share
            {
                return;
            }
            seen.push((alone, shared));
        }
        panic!("a spinning neighbour never slowed the probe: {seen:?}");
    }
}
