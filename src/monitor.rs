//! Sampling a running flash deployment for the predictor (`nfc monitor`,
//! `nfc profile`): the NF host processes are found through the deployment's
//! monitor (its stats name every attached NF's pid), their counters are read
//! by [`flash_rt::counters::Collector`] from outside the processes, and the
//! chain's packet rates come from the monitor's interface counters. Nothing
//! here is on the data path: a sample is a stats request to the monitor (its
//! control thread answers it) and a few `read`s of kernel counters.
//!
//! A row is nfc's counter-CSV schema (`nfc-predictor` reads it):
//! `input_rate,output_rate[,latency],<nf>_<counter>…`, rates in packets per
//! second, counters per second (task-clock and run-delay in ns per second).

use crate::Failure;
use flash_rt::counters::{chain_packets, targets_from_stats, Collector, CounterError, Support};
use flash_rt::deploy::Deployment;
use flash_rt::monitor::protocol::{request, Request, Response};
use nfc_core::Diagnostic;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// A running deployment's counters, sample by sample.
#[derive(Debug)]
pub struct Sampler {
    socket: PathBuf,
    collector: Collector,
    last_packets: (u64, u64),
    last_at: Instant,
}

/// One row: the chain's packet rates and every counter.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub input_rate: f64,
    pub output_rate: f64,
    /// In the order of [`Sampler::columns`].
    pub counters: Vec<f64>,
    /// Seconds the row covers.
    pub interval: f64,
}

/// The monitor socket of the deployment at `path` (a directory or its
/// deployment.json), resolved against the current directory.
pub fn monitor_socket(path: &Path) -> Result<(Deployment, PathBuf), Failure> {
    let file = crate::online::deployment_file(path).ok_or_else(|| {
        Failure::diag(
            Diagnostic::error("E0600", format!("{} is not a flash deployment", path.display()))
                .with_hint("give the directory `nfc build --target flash -o DIR` wrote, or its deployment.json"),
        )
    })?;
    let dep = Deployment::load(&file).map_err(|e| {
        Failure::diag(
            Diagnostic::error("E0602", e.to_string())
                .with_hint("re-emit it with `nfc build <chain.yaml> --target flash -o DIR`"),
        )
    })?;
    let socket = dep.monitor.socket.clone();
    Ok((dep, socket))
}

/// The monitor's stats, or E0610 when no monitor answers on `socket`.
pub fn stats(socket: &Path) -> Result<serde_json::Value, Failure> {
    match request(socket, &Request::Stats) {
        Ok((Response::Stats { stats }, _)) => Ok(stats),
        Ok((other, _)) => Err(Failure::Internal {
            stage: "monitor",
            message: format!("the monitor answered a stats request with {other:?}"),
        }),
        Err(e) => Err(Failure::diag(
            Diagnostic::error(
                "E0610",
                format!("no running chain answers on {}: {e}", socket.display()),
            )
            .with_hint("start it first (`nfc run <deployment dir>`, as root) and monitor it from the same directory, or give the deployment whose monitor socket it uses"),
        )),
    }
}

fn counter_failure(e: CounterError) -> Failure {
    Failure::diag(
        Diagnostic::error(
            "E0611",
            format!("the NF hosts' counters cannot be read: {e}"),
        )
        .with_hint("run as root (perf_event_open on another user's process), while the chain runs"),
    )
}

impl Sampler {
    /// Attach to the running deployment at `path`: every NF must be
    /// attached (a pid in the monitor's stats).
    pub fn attach(path: &Path) -> Result<Sampler, Failure> {
        Self::attach_with(path, true)
    }

    /// [`Sampler::attach`]; `perf` false reads scheduler statistics only.
    pub fn attach_with(path: &Path, perf: bool) -> Result<Sampler, Failure> {
        let (dep, socket) = monitor_socket(path)?;
        let st = stats(&socket)?;
        let targets = targets_from_stats(&st);
        if targets.len() != dep.nfs.len() {
            let missing: Vec<&str> = dep
                .nfs
                .iter()
                .filter(|n| !targets.iter().any(|t| t.nf == n.id))
                .map(|n| n.id.as_str())
                .collect();
            return Err(Failure::diag(
                Diagnostic::error(
                    "E0610",
                    format!(
                        "the chain is not fully running: NF(s) {} have no attached host",
                        missing.join(", ")
                    ),
                )
                .with_hint("wait until `nfc run` reports every NF attached"),
            ));
        }
        let collector = Collector::open_with(&targets, perf).map_err(counter_failure)?;
        Ok(Sampler {
            socket,
            collector,
            last_packets: chain_packets(&st),
            last_at: Instant::now(),
        })
    }

    /// `<nf>_<counter>` of every supported counter.
    pub fn columns(&self) -> Vec<String> {
        self.collector.columns()
    }

    /// Counters this machine does not give, with the reason.
    pub fn unsupported(&self) -> Vec<(&'static str, String)> {
        self.collector
            .support()
            .into_iter()
            .filter_map(|(ev, s)| match s {
                Support::Supported => None,
                Support::NotSupported(why) => Some((ev.name, why.clone())),
            })
            .collect()
    }

    /// Counters this machine gives.
    pub fn supported(&self) -> Vec<&'static str> {
        self.collector
            .support()
            .into_iter()
            .filter(|(_, s)| **s == Support::Supported)
            .map(|(ev, _)| ev.name)
            .collect()
    }

    /// The NF hosts sampled: (NF id, pid).
    pub fn hosts(&self) -> Vec<(String, u32)> {
        self.collector
            .targets()
            .into_iter()
            .map(|t| (t.nf.clone(), t.pid))
            .collect()
    }

    /// Counters and packet rates since the previous sample.
    pub fn sample(&mut self) -> Result<Row, Failure> {
        let s = self.collector.sample();
        let st = stats(&self.socket)?;
        let now = Instant::now();
        let secs = now.duration_since(self.last_at).as_secs_f64().max(1e-9);
        self.last_at = now;
        let (rx, tx) = chain_packets(&st);
        let (rx0, tx0) = std::mem::replace(&mut self.last_packets, (rx, tx));
        Ok(Row {
            input_rate: rx.saturating_sub(rx0) as f64 / secs,
            output_rate: tx.saturating_sub(tx0) as f64 / secs,
            counters: s.values,
            interval: s.interval,
        })
    }

    /// Counters only (for callers that measure the rates themselves).
    pub fn sample_counters(&mut self) -> Vec<f64> {
        self.collector.sample().values
    }
}

/// A CSV cell: integers stay short, others keep 6 significant decimals.
pub fn cell(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v:.3}")
    }
}
