//! Smart polling (FLASH §4.4, Fig. 9) as a pure state machine: an NF starts
//! in interrupt mode (blocking poll()), switches to busy polling when the
//! packet rate over a window reaches a threshold, and returns to interrupt
//! mode after a timeout without packets. Throttling under backpressure is
//! decided by the host (a full downstream ring), which sleeps for
//! `throttle_us` instead of spinning.

use crate::deploy::PollingConfig;

/// Current polling mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Block in poll() when idle.
    Interrupt,
    /// Spin while idle, until the busy timeout.
    Busy,
}

/// What the host should do after an iteration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Run the next iteration immediately.
    Spin,
    /// Block in poll() until woken.
    Sleep,
}

/// The polling state machine.
#[derive(Debug, Clone)]
pub struct Poller {
    cfg: PollingConfig,
    mode: Mode,
    window_start_ns: u64,
    window_pkts: u64,
    last_pkt_ns: u64,
    /// Mode switches so far: (to busy, to interrupt).
    pub switches: (u64, u64),
}

impl Poller {
    /// A poller in interrupt mode at time `now_ns`.
    pub fn new(cfg: PollingConfig, now_ns: u64) -> Poller {
        Poller {
            cfg,
            mode: Mode::Interrupt,
            window_start_ns: now_ns,
            window_pkts: 0,
            last_pkt_ns: now_ns,
            switches: (0, 0),
        }
    }

    /// Current mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Account an iteration that handled `pkts` packets at `now_ns`.
    pub fn on_iteration(&mut self, now_ns: u64, pkts: usize) -> Action {
        self.window_pkts += pkts as u64;
        let elapsed = now_ns.saturating_sub(self.window_start_ns);
        if elapsed >= self.cfg.window_us * 1000 {
            let rate = self.window_pkts.saturating_mul(1_000_000_000) / elapsed.max(1);
            if self.mode == Mode::Interrupt
                && !self.cfg.never_busy
                && rate >= self.cfg.busy_threshold_pps
            {
                self.mode = Mode::Busy;
                self.switches.0 += 1;
            }
            self.window_start_ns = now_ns;
            self.window_pkts = 0;
        }
        if pkts > 0 {
            self.last_pkt_ns = now_ns;
            return Action::Spin;
        }
        match self.mode {
            Mode::Busy
                if now_ns.saturating_sub(self.last_pkt_ns) < self.cfg.busy_timeout_us * 1000 =>
            {
                Action::Spin
            }
            Mode::Busy => {
                self.mode = Mode::Interrupt;
                self.switches.1 += 1;
                Action::Sleep
            }
            Mode::Interrupt => Action::Sleep,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feed (time µs, packets) steps; compare actions and final mode.
    fn check(cfg: PollingConfig, steps: &[(u64, usize)], expect: &[Action], mode: Mode) {
        let mut p = Poller::new(cfg, 0);
        let got: Vec<Action> = steps
            .iter()
            .map(|&(t, n)| p.on_iteration(t * 1000, n))
            .collect();
        assert_eq!(got, expect);
        assert_eq!(p.mode(), mode);
    }

    fn cfg() -> PollingConfig {
        PollingConfig {
            busy_threshold_pps: 100_000,
            window_us: 1000,
            busy_timeout_us: 500,
            ..PollingConfig::default()
        }
    }

    #[test]
    fn idle_sleeps() {
        check(
            cfg(),
            &[(10, 0), (2000, 0)],
            &[Action::Sleep, Action::Sleep],
            Mode::Interrupt,
        );
    }

    #[test]
    fn high_rate_goes_busy_then_times_out() {
        use Action::*;
        // 200 packets in 1 ms = 200 kpps >= 100 kpps.
        check(
            cfg(),
            &[(500, 100), (1000, 100), (1200, 0), (1400, 0), (1600, 0)],
            &[Spin, Spin, Spin, Spin, Sleep],
            Mode::Interrupt,
        );
        check(
            cfg(),
            &[(500, 100), (1000, 100), (1200, 0)],
            &[Spin, Spin, Spin],
            Mode::Busy,
        );
    }

    #[test]
    fn low_rate_stays_interrupt_and_never_busy_is_respected() {
        use Action::*;
        check(
            cfg(),
            &[(500, 10), (1000, 10), (1100, 0)],
            &[Spin, Spin, Sleep],
            Mode::Interrupt,
        );
        let never = PollingConfig {
            never_busy: true,
            ..cfg()
        };
        check(
            never,
            &[(500, 1000), (1000, 1000), (1100, 0)],
            &[Spin, Spin, Sleep],
            Mode::Interrupt,
        );
    }
}
