//! The predictor's output: expected throughput and latency of a plan.

use serde::{Deserialize, Serialize};

/// Predicted KPIs of a deployed chain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Prediction {
    /// Packets per second leaving the chain (delivered), in millions: the
    /// CPU capacity, times the share of packets the chain's own semantics
    /// let through at that rate (see [`Prediction::cap`]).
    pub throughput_mpps: f64,
    pub latency_us: f64,
    /// Which model produced the numbers.
    pub model: String,
    /// The NF the model says limits the chain: the one that drops the
    /// packets when the chain's semantics cap it, else the most expensive.
    #[serde(default)]
    pub bottleneck: Option<String>,
    /// The model's measured relative error on chains it was not fitted on
    /// (|predicted − measured| / measured, the largest).
    #[serde(default)]
    pub error: Option<f64>,
    /// The data the model was calibrated on.
    #[serde(default)]
    pub data: Option<String>,
    /// The features per NF the prediction used (name, value).
    #[serde(default)]
    pub features: Vec<(String, Vec<(String, f64)>)>,
    /// Input packets per second the chain can process (millions), from the
    /// CPU-cost model alone, before any cap.
    #[serde(default)]
    pub capacity_mpps: Option<f64>,
    /// What the chain's own semantics let through when offered its
    /// capacity: set when the replay dropped packets (a rate limiter, a
    /// filter), absent when every packet left the chain.
    #[serde(default)]
    pub cap: Option<ThroughputCap>,
    /// The machine state the prediction was scaled to (absent for a model
    /// calibrated without machine probes).
    #[serde(default)]
    pub machine: Option<MachineState>,
}

/// The state of the target machine a prediction is for: a short probe of
/// how fast it runs NF-like work now, against the probe the cost model
/// was calibrated at.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MachineState {
    /// Wall-clock ns per unit of probe work per thread, measured now.
    pub probe_ns_per_unit: f64,
    /// The same at the model's reference state.
    pub reference_ns_per_unit: f64,
    /// Share of the wall time the probe's threads were on a CPU.
    pub cpu_share: f64,
    /// Factor applied to the model's time per packet:
    /// (probe / reference) ^ load exponent.
    pub scale: f64,
    /// 1-minute load average when probed.
    pub loadavg_1m: Option<f64>,
    /// When (UTC, seconds since the epoch).
    pub measured_at_unix_s: u64,
}

/// A throughput cap measured by running the chain over its traffic
/// profile, time-faithfully, at the offered rate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThroughputCap {
    /// Packets per second offered (millions): the CPU capacity.
    pub offered_mpps: f64,
    /// Share of the offered packets that left the chain in the
    /// measurement window.
    pub pass_fraction: f64,
    /// offered × pass fraction, millions of packets per second.
    pub delivered_mpps: f64,
    /// Pass fraction of the same replay at a tenth of the offered rate.
    #[serde(default)]
    pub pass_fraction_low: Option<f64>,
    /// The pass fraction falls with the rate (a rate limit, not a rule):
    /// then `bottleneck` is also the prediction's bottleneck.
    #[serde(default)]
    pub rate_limited: bool,
    /// The NF whose drops per packet grow the most with the rate (the most
    /// drops when there is no low-rate replay).
    pub bottleneck: Option<String>,
    /// Drops per NF in the measurement window (NF id, packets dropped).
    pub drops: Vec<(String, u64)>,
    /// How it was measured (executor, traffic, timing, windows).
    pub source: String,
}
