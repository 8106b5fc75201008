//! The clock of the analysis budget: CPU time spent on the analysis, not
//! wall-clock time. On a busy machine a wall-clock budget ran out on the
//! largest units (ndpi's detection core: 1 s of work, a 5 s budget, over it
//! at a load of 8 on 2 CPUs) and their facts turned "unknown": the same
//! sources got different answers depending on what else ran. CPU time is
//! the work the analysis did, whatever the machine's load.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// CPU time the calling thread has used so far.
pub fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_THREAD_CPUTIME_ID
    // is supported on every Linux this runs on (it cannot fail with a
    // valid pointer and clock id).
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return Duration::ZERO;
    }
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// The CPU time an analysis may use, and what it has used: the analysis
/// thread's own time since [`CpuBudget::start`], plus time spent for it on
/// helper threads ([`CpuBudget::on_helper`]). A wall-clock backstop of
/// [`WALL_BACKSTOP`] times the limit still ends an analysis the machine
/// starves of CPU (answers then depend on the load, but only past that
/// slowdown).
#[derive(Debug)]
pub struct CpuBudget {
    limit: Duration,
    /// The analysis thread's CPU time when the analysis started.
    start: Duration,
    helpers_nanos: AtomicU64,
    wall_deadline: std::time::Instant,
}

/// How many times its CPU budget an analysis may take in wall-clock time.
pub const WALL_BACKSTOP: u32 = 4;

impl CpuBudget {
    /// Start the budget on the analysis thread.
    pub fn start(limit: Duration) -> CpuBudget {
        CpuBudget {
            limit,
            start: thread_cpu(),
            helpers_nanos: AtomicU64::new(0),
            wall_deadline: std::time::Instant::now() + limit * WALL_BACKSTOP,
        }
    }

    fn helpers(&self) -> Duration {
        Duration::from_nanos(self.helpers_nanos.load(Ordering::Relaxed))
    }

    /// Used up, as seen from the analysis thread.
    pub fn expired(&self) -> bool {
        thread_cpu().saturating_sub(self.start) + self.helpers() > self.limit
            || self.past_backstop()
    }

    /// The wall-clock backstop has passed.
    pub fn past_backstop(&self) -> bool {
        std::time::Instant::now() > self.wall_deadline
    }

    /// The wall-clock instant of the backstop (for a loop that checks the
    /// clock itself).
    pub fn backstop(&self) -> std::time::Instant {
        self.wall_deadline
    }

    /// Used up by the helpers' time alone (a helper cannot read the
    /// analysis thread's clock; the analysis thread checks the sum).
    pub fn expired_on_helpers(&self) -> bool {
        self.helpers() > self.limit || self.past_backstop()
    }

    /// Run `work` on a helper thread, counting its CPU time.
    pub fn on_helper<T>(&self, work: impl FnOnce() -> T) -> T {
        let t0 = thread_cpu();
        let out = work();
        let spent = thread_cpu().saturating_sub(t0);
        self.helpers_nanos
            .fetch_add(spent.as_nanos() as u64, Ordering::Relaxed);
        out
    }

    /// The analysis thread's CPU clock reading at which the budget is used
    /// up, given what has been spent so far (for a loop that checks the
    /// clock itself).
    pub fn stop_at(&self) -> Duration {
        (self.start + self.limit).saturating_sub(self.helpers())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_counts_work_not_waiting() {
        let b = CpuBudget::start(Duration::from_millis(50));
        // Sleeping uses no CPU: the budget is still there afterwards.
        std::thread::sleep(Duration::from_millis(120));
        assert!(!b.expired());
        // Spinning does.
        let t0 = std::time::Instant::now();
        while !b.expired() {
            assert!(
                t0.elapsed() < Duration::from_secs(30),
                "budget never ran out"
            );
            std::hint::black_box((0..1000u64).sum::<u64>());
        }
    }

    #[test]
    fn an_analysis_starved_of_cpu_still_ends_at_the_backstop() {
        let b = CpuBudget::start(Duration::from_millis(10));
        std::thread::sleep(Duration::from_millis(10 * u64::from(WALL_BACKSTOP) + 20));
        assert!(b.past_backstop());
        assert!(b.expired());
    }

    #[test]
    fn helper_time_counts_toward_the_budget() {
        let b = CpuBudget::start(Duration::from_millis(30));
        std::thread::scope(|s| {
            s.spawn(|| {
                b.on_helper(|| {
                    let t0 = thread_cpu();
                    while thread_cpu() - t0 < Duration::from_millis(40) {
                        std::hint::black_box((0..1000u64).sum::<u64>());
                    }
                })
            });
        });
        assert!(b.expired_on_helpers());
        assert!(b.expired());
    }
}
