//! The `predict` stage of `nfc build`: throughput of a chain on flash-rt
//! before it is deployed, from what nfc can measure offline.
//!
//! Features: each NF's cost per input packet, measured by running the chain
//! in the reference executor (`nfc run <chain> --pcap`, one worker, every NF
//! shared) over its own traffic profile under valgrind's callgrind with
//! cache simulation — deterministic here, unlike any timing on this VM. The
//! callgrind profile is split by object file: each NF runs from a private
//! copy of its shared object (`nfc-nf-<pid>-<seq>-<stem>.so`, loaded in
//! chain order), so an object's self cost is that NF's (instructions,
//! memory reads and writes, D1 and LL misses).
//!
//! Model ([`CostModel`]): the chain's time per packet on the flash runtime
//! is `c + a · hops + b · Σ instructions/packet`: `c` what every packet
//! costs whatever the chain (the generator and sink, the kernel's veth and
//! XDP redirect path, the AF_XDP copy into the UMEM, the monitor's
//! interface rings), `a` per NF host crossed (ring hand-over, polling,
//! wake-ups), `b` per NF instruction at this machine's CPI — all of it
//! sharing the same 2 CPUs, so the costs add. Fitted by non-negative least
//! squares on the relative error of the measured closed-loop saturation of
//! the example and calibration chains (`cargo xtask bench profile-data`),
//! with its error measured leave-one-chain-out. The NF with the most
//! instructions per packet is the bottleneck the prediction names.
//!
//! Cap ([`replay_at_rate`]): a chain's semantics can deliver less than its
//! CPU capacity — a token bucket, a meter, a per-flow limiter, a filter.
//! No NF is special-cased: the chain runs in the same reference executor,
//! natively, over its traffic profile replayed at the capacity the model
//! predicts, with packet timestamps spaced at that rate (NFs read time
//! from `nf_ctx.now_ns`, the packet's timestamp offline and the clock on
//! line, so the replay is time-faithful). After [`REPLAY_WARMUP_S`]
//! seconds of traffic time (a bucket's burst is spent) the packets that
//! leave the chain in the next [`REPLAY_MEASURE_S`] seconds give the pass
//! fraction; the prediction is min(capacity, capacity × pass fraction),
//! and the NF that dropped the most in that window is the bottleneck.

use crate::driver::{self, Workspace};
use crate::Failure;
use nfc_core::chain::{ChainSpec, Traffic};
use nfc_core::prediction::{MachineState, Prediction, ThroughputCap};
use nfc_core::Diagnostic;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Offline cost of one NF per input packet of the chain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NfCost {
    pub nf: String,
    pub instructions: f64,
    /// Data reads + writes.
    pub memory_accesses: f64,
    /// D1 read + write misses.
    pub d1_misses: f64,
    /// Last-level read + write misses.
    pub ll_misses: f64,
}

/// The calibrated model (`cargo xtask bench profile-data` writes one; the
/// one nfc ships is `data/flash-cost-model.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CostModel {
    pub format: u32,
    /// ns per packet whatever the chain (format 2; 0 in format 1).
    #[serde(default)]
    pub ns_base: f64,
    /// ns per hop (NF host crossed).
    pub ns_per_hop: f64,
    /// ns per NF instruction.
    pub ns_per_instruction: f64,
    /// The chains and their measured saturation (pps) it was fitted on.
    pub calibrated_on: BTreeMap<String, f64>,
    /// Leave-one-chain-out relative errors |pred − measured| / measured.
    pub loco_errors: BTreeMap<String, f64>,
    /// Leave-one-chain-out predictions (pps): each chain by the model
    /// fitted on the others.
    #[serde(default)]
    pub loco_predictions: BTreeMap<String, f64>,
    /// The error the model reports: the largest leave-one-chain-out error
    /// (over the held-out capped chains too).
    pub error: f64,
    /// Chains measured but held out of the fit because their semantics,
    /// not their CPU cost, set their measured rate: the share of the
    /// packets the time-faithful replay let through at the rate the
    /// measurement offered. Their predictions (capacity from the fit, then
    /// capped) are out of sample and count in `loco_errors` and `error`.
    #[serde(default)]
    pub capped: BTreeMap<String, f64>,
    /// Where the measurements came from (machine, date, command).
    pub provenance: String,
    /// How the time per packet scales with the machine's state (format
    /// 3): × (probe / `probe_reference`) ^ `load_exponent`, the probe
    /// being [`nfc_machine_probe`]'s wall-clock ns per unit. 0 (and no
    /// reference) for a model calibrated without probes: no scaling.
    #[serde(default)]
    pub load_exponent: f64,
    /// The probe (ns per unit) the three costs above hold at.
    #[serde(default)]
    pub probe_reference: Option<f64>,
    /// [`nfc_machine_probe::PROBE_VERSION`] of the calibration's probes.
    #[serde(default)]
    pub probe_version: Option<u32>,
    /// Leave-one-chain-out errors per machine condition of the
    /// calibration (condition → chain → error); `error` is their largest.
    #[serde(default)]
    pub loco_errors_by_condition: BTreeMap<String, BTreeMap<String, f64>>,
    /// Each condition's machine state during the calibration (probe
    /// median and range, load averages).
    #[serde(default)]
    pub conditions: BTreeMap<String, String>,
}

/// A chain measured on flash-rt under one machine condition: its NF costs
/// and, per window, the delivered rate with the machine probe taken
/// around that window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    pub chain: String,
    pub costs: Vec<NfCost>,
    pub condition: String,
    /// (delivered pps, probe ns per unit) per window.
    pub windows: Vec<(f64, f64)>,
    /// The single probes of the condition in time order (each window's
    /// before and after): the error is taken over medians of
    /// [`PREDICTION_PROBES`] consecutive ones, as the stage probes. Empty:
    /// the windows' probes.
    #[serde(default)]
    pub probes: Vec<f64>,
}

fn median_of(v: impl IntoIterator<Item = f64>) -> f64 {
    let mut v: Vec<f64> = v.into_iter().filter(|x| x.is_finite()).collect();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// Load exponents the fit tries (0: the machine's state does not matter;
/// 1: time per packet proportional to the probe's time per unit).
const LOAD_EXPONENTS: std::ops::RangeInclusive<u32> = 0..=40;
const LOAD_EXPONENT_STEP: f64 = 0.05;

/// The three costs and the load exponent fitted on `rows` (chain features,
/// time per packet, probe / reference) by NNLS on the relative error for
/// each exponent on the grid, the exponent with the smallest error kept.
fn fit_scaled(rows: &[([f64; 3], f64, f64)]) -> Option<([f64; 3], f64)> {
    let mut best: Option<([f64; 3], f64, f64)> = None;
    for k in LOAD_EXPONENTS {
        let g = k as f64 * LOAD_EXPONENT_STEP;
        let scaled: Vec<([f64; 3], f64, f64)> = rows
            .iter()
            .map(|(x, t, s)| {
                let t = t / s.powf(g);
                (*x, t, 1.0 / (t * t))
            })
            .collect();
        let Some(theta) = nnls(&scaled) else { continue };
        let sse: f64 = scaled
            .iter()
            .map(|(x, t, w)| {
                let p: f64 = x.iter().zip(&theta).map(|(x, th)| x * th).sum();
                w * (p - t).powi(2)
            })
            .sum();
        if best.as_ref().is_none_or(|b| sse < b.2 - 1e-12 * b.2.abs()) {
            best = Some((theta, g, sse));
        }
    }
    best.map(|(t, g, _)| (t, g))
}

/// The model nfc ships (fitted on this repository's own profiles).
pub const SHIPPED_MODEL: &str = include_str!("../data/flash-cost-model.json");

/// Packets of the chain's traffic profile the cost is measured over
/// (valgrind runs ~50× slower than native).
pub const COST_PACKETS: u64 = 3000;

fn unavailable(msg: String, hint: &str) -> Failure {
    Failure::diag(Diagnostic::error("E0901", msg).with_hint(hint))
}

/// The model's features of a chain: [1, NF hosts, Σ NF instructions/packet].
fn features(costs: &[NfCost]) -> [f64; 3] {
    [
        1.0,
        costs.len() as f64,
        costs.iter().map(|c| c.instructions).sum(),
    ]
}

/// Non-negative weighted least squares of `t ≈ x · θ` over `rows` (x, t,
/// weight), by trying every set of free parameters (3 parameters: 7
/// sets) and keeping the best whose solution is non-negative. None when no
/// set is solvable.
fn nnls(rows: &[([f64; 3], f64, f64)]) -> Option<[f64; 3]> {
    let mut best: Option<([f64; 3], f64)> = None;
    for mask in 1u32..8 {
        let free: Vec<usize> = (0..3).filter(|j| mask & (1 << j) != 0).collect();
        let k = free.len();
        if rows.len() < k {
            continue;
        }
        // Normal equations over the free parameters, Gaussian elimination.
        let mut a = vec![vec![0.0; k + 1]; k];
        for (x, t, w) in rows {
            for (r, &i) in free.iter().enumerate() {
                for (c, &j) in free.iter().enumerate() {
                    a[r][c] += w * x[i] * x[j];
                }
                a[r][k] += w * x[i] * t;
            }
        }
        let scale = a
            .iter()
            .map(|r| r[..k].iter().fold(0.0f64, |m, v| m.max(v.abs())))
            .fold(0.0, f64::max);
        let mut ok = scale > 0.0;
        for col in 0..k {
            if !ok {
                break;
            }
            let piv = (col..k).max_by(|&p, &q| a[p][col].abs().total_cmp(&a[q][col].abs()));
            let Some(piv) = piv else {
                ok = false;
                break;
            };
            if a[piv][col].abs() <= 1e-12 * scale {
                ok = false;
                break;
            }
            a.swap(col, piv);
            let pivot = a[col].clone();
            for (r, row) in a.iter_mut().enumerate() {
                if r != col {
                    let f = row[col] / pivot[col];
                    for (v, p) in row.iter_mut().zip(&pivot).skip(col) {
                        *v -= f * p;
                    }
                }
            }
        }
        if !ok {
            continue;
        }
        let mut theta = [0.0; 3];
        for (r, &j) in free.iter().enumerate() {
            theta[j] = a[r][k] / a[r][r];
        }
        if theta.iter().any(|v| !v.is_finite() || *v < 0.0) {
            continue;
        }
        let sse: f64 = rows
            .iter()
            .map(|(x, t, w)| {
                let p: f64 = x.iter().zip(&theta).map(|(x, th)| x * th).sum();
                w * (p - t).powi(2)
            })
            .sum();
        if best
            .as_ref()
            .is_none_or(|(_, b)| sse < *b - 1e-12 * b.abs())
        {
            best = Some((theta, sse));
        }
    }
    best.map(|(t, _)| t)
}

impl CostModel {
    /// Chain time per packet (ns) from its NF costs, at the model's
    /// reference machine state.
    pub fn ns_per_packet(&self, costs: &[NfCost]) -> f64 {
        let [one, hops, instr] = features(costs);
        self.ns_base * one + self.ns_per_hop * hops + self.ns_per_instruction * instr
    }

    /// The factor the time per packet is multiplied by on a machine whose
    /// probe reads `probe` ns per unit (1 without a reference).
    pub fn scale(&self, probe: f64) -> f64 {
        match self.probe_reference {
            Some(r) if r > 0.0 && probe > 0.0 => (probe / r).powf(self.load_exponent),
            _ => 1.0,
        }
    }

    /// The median leave-one-chain-out error (`error` is the largest).
    pub fn median_error(&self) -> f64 {
        median_of(self.loco_errors.values().copied())
    }

    /// Fit on (costs, measured pps) per chain, minimising the squared
    /// relative error of the time per packet (weights 1/t²); None with
    /// fewer than 3 chains (the leave-one-chain-out error needs a fit on
    /// at least 2).
    pub fn fit(chains: &[(String, Vec<NfCost>, f64)], provenance: String) -> Option<CostModel> {
        Self::fit_capped(chains, &[], |_, pps| pps, provenance)
    }

    /// [`CostModel::fit_measured`] of one window per chain, without
    /// machine probes (no scaling); `capped` chains carry their pass
    /// fraction.
    pub fn fit_capped(
        chains: &[(String, Vec<NfCost>, f64)],
        capped: &[(String, Vec<NfCost>, f64, f64)],
        deliver: impl FnMut(&str, f64) -> f64,
        provenance: String,
    ) -> Option<CostModel> {
        let one = |c: &String, k: &Vec<NfCost>, p: f64| Measured {
            chain: c.clone(),
            costs: k.clone(),
            condition: String::new(),
            windows: vec![(p, 1.0)],
            probes: vec![],
        };
        let rows: Vec<Measured> = chains
            .iter()
            .map(|(c, k, p)| one(c, k, *p))
            .chain(capped.iter().map(|(c, k, p, _)| one(c, k, *p)))
            .collect();
        let pass: BTreeMap<String, f64> =
            capped.iter().map(|(c, _, _, f)| (c.clone(), *f)).collect();
        let mut m = Self::fit_measured(&rows, &pass, deliver, provenance)?;
        m.probe_reference = None;
        m.probe_version = None;
        m.load_exponent = 0.0;
        m.loco_errors_by_condition.clear();
        m.conditions.clear();
        Some(m)
    }

    /// Fit on chains measured window by window under one or more machine
    /// conditions, each window with the machine probe around it: time per
    /// packet = (c + a·hops + b·instructions) × (probe / reference) ^ γ,
    /// c, a, b ≥ 0 by NNLS on the relative error of every window, γ in
    /// 0–2 the one that fits best; the reference is the median probe of
    /// all windows. None with fewer than 3 chains outside `capped`.
    ///
    /// The error is taken the way the model is used: for each chain and
    /// condition, the model fitted without that chain predicts each
    /// window's capacity from its probe; the median of those capacities,
    /// through `deliver(chain, capacity pps) -> delivered pps` (the cap of
    /// the chain's semantics, [`replay_at_rate`]), against the median
    /// delivered rate measured. `capped` chains (name → pass fraction at
    /// the offered rate) are held out of every fit and predicted by the
    /// model fitted on all the others. `error` is the largest over chains
    /// and conditions.
    pub fn fit_measured(
        measured: &[Measured],
        capped: &BTreeMap<String, f64>,
        mut deliver: impl FnMut(&str, f64) -> f64,
        provenance: String,
    ) -> Option<CostModel> {
        let fit_rows: Vec<&Measured> = measured
            .iter()
            .filter(|m| !capped.contains_key(&m.chain))
            .collect();
        let fit_chains: std::collections::BTreeSet<&str> =
            fit_rows.iter().map(|m| m.chain.as_str()).collect();
        if fit_chains.len() < 3 {
            return None;
        }
        let reference = median_of(fit_rows.iter().flat_map(|m| m.windows.iter().map(|w| w.1)));
        if !(reference.is_finite() && reference > 0.0) {
            return None;
        }
        let rows_of = |skip: Option<&str>| -> Vec<([f64; 3], f64, f64)> {
            fit_rows
                .iter()
                .filter(|m| Some(m.chain.as_str()) != skip)
                .flat_map(|m| {
                    m.windows
                        .iter()
                        .filter(|(pps, p)| *pps > 0.0 && *p > 0.0)
                        .map(|(pps, p)| (features(&m.costs), 1e9 / pps, p / reference))
                })
                .collect()
        };
        let model = |(theta, g): ([f64; 3], f64)| CostModel {
            format: 3,
            ns_base: theta[0],
            ns_per_hop: theta[1],
            ns_per_instruction: theta[2],
            calibrated_on: BTreeMap::new(),
            loco_errors: BTreeMap::new(),
            loco_predictions: BTreeMap::new(),
            error: 0.0,
            capped: BTreeMap::new(),
            provenance: String::new(),
            load_exponent: g,
            probe_reference: Some(reference),
            probe_version: Some(nfc_machine_probe::PROBE_VERSION),
            loco_errors_by_condition: BTreeMap::new(),
            conditions: BTreeMap::new(),
        };
        let mut m = model(fit_scaled(&rows_of(None))?);
        // The prediction for a row as the stage makes it, from the median
        // of PREDICTION_PROBES consecutive probes: every such run of the
        // condition's probes gives one; the one farthest from the measured
        // median is kept (capped by the pass fraction at the median
        // capacity: the replay's answer changes slowly with the rate).
        let mut predict_row = |fitted: &CostModel, row: &Measured| -> f64 {
            let probes: Vec<f64> = if row.probes.is_empty() {
                row.windows.iter().map(|w| w.1).collect()
            } else {
                row.probes.clone()
            };
            let k = PREDICTION_PROBES.min(probes.len()).max(1);
            let cap = |p: f64| 1e9 / (fitted.ns_per_packet(&row.costs) * fitted.scale(p));
            let caps: Vec<f64> = probes
                .windows(k)
                .map(|run| cap(median_of(run.iter().copied())))
                .collect();
            let mid = median_of(caps.iter().copied());
            let pass = if mid > 0.0 {
                deliver(&row.chain, mid) / mid
            } else {
                1.0
            };
            let meas = median_of(row.windows.iter().map(|w| w.0));
            caps.iter()
                .map(|c| c * pass)
                .max_by(|a, b| ((a - meas).abs()).total_cmp(&(b - meas).abs()))
                .unwrap_or(f64::NAN)
        };
        let mut loco: Vec<(String, String, f64, f64)> = vec![];
        for chain in &fit_chains {
            let Some(fitted) = fit_scaled(&rows_of(Some(chain))).map(model) else {
                continue;
            };
            for row in fit_rows.iter().filter(|r| r.chain == *chain) {
                let pred = predict_row(&fitted, row);
                let meas = median_of(row.windows.iter().map(|w| w.0));
                loco.push((row.chain.clone(), row.condition.clone(), pred, meas));
            }
        }
        for row in measured.iter().filter(|m| capped.contains_key(&m.chain)) {
            let pred = predict_row(&m, row);
            let meas = median_of(row.windows.iter().map(|w| w.0));
            loco.push((row.chain.clone(), row.condition.clone(), pred, meas));
        }
        for (chain, cond, pred, meas) in loco {
            let err = ((pred - meas) / meas).abs();
            m.loco_errors_by_condition
                .entry(cond.clone())
                .or_default()
                .insert(chain.clone(), err);
            let key = if cond.is_empty() {
                chain.clone()
            } else {
                format!("{chain} ({cond})")
            };
            m.loco_predictions.insert(key.clone(), pred);
            m.loco_errors.insert(key, err);
        }
        m.capped = capped.clone();
        m.error = m.loco_errors.values().copied().fold(0.0, f64::max);
        m.calibrated_on = fit_chains
            .iter()
            .map(|c| {
                let pps = median_of(
                    fit_rows
                        .iter()
                        .filter(|r| r.chain == *c)
                        .flat_map(|r| r.windows.iter().map(|w| w.0)),
                );
                (c.to_string(), pps)
            })
            .collect();
        m.provenance = provenance;
        Some(m)
    }

    /// The prediction for a chain with these NF costs.
    ///
    /// With `probe` (this machine, now) and a model calibrated with
    /// probes, the time per packet is scaled to the probed state and the
    /// prediction carries it ([`Prediction::machine`]).
    pub fn predict(
        &self,
        costs: &[NfCost],
        model_name: &str,
        probe: Option<&nfc_machine_probe::MachineProbe>,
    ) -> Prediction {
        let machine = match (probe, self.probe_reference) {
            (Some(p), Some(reference)) if self.probe_version == Some(p.version) => {
                Some(MachineState {
                    probe_ns_per_unit: p.ns_per_unit,
                    reference_ns_per_unit: reference,
                    cpu_share: p.cpu_share,
                    scale: self.scale(p.ns_per_unit),
                    loadavg_1m: p.loadavg_1m,
                    measured_at_unix_s: std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map_or(0, |d| d.as_secs()),
                })
            }
            _ => None,
        };
        let ns = self.ns_per_packet(costs) * machine.as_ref().map_or(1.0, |m| m.scale);
        let bottleneck = costs
            .iter()
            .max_by(|a, b| a.instructions.total_cmp(&b.instructions))
            .map(|c| c.nf.clone());
        let mpps = if ns > 0.0 { 1e3 / ns } else { f64::NAN };
        Prediction {
            throughput_mpps: mpps,
            // Unloaded latency: one packet's service time through the chain.
            latency_us: ns / 1e3,
            model: model_name.to_string(),
            bottleneck,
            error: Some(self.error),
            data: Some(format!(
                "{} (fitted on {}{}; leave-one-chain-out error median {:.0}%, max {:.0}%)",
                self.provenance,
                self.calibrated_on
                    .keys()
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", "),
                if self.capped.is_empty() {
                    String::new()
                } else {
                    format!(
                        "; held out as capped by their semantics: {}",
                        self.capped.keys().cloned().collect::<Vec<_>>().join(", ")
                    )
                },
                self.median_error() * 100.0,
                self.error * 100.0
            )),
            capacity_mpps: Some(mpps),
            cap: None,
            machine,
            features: costs
                .iter()
                .map(|c| {
                    (
                        c.nf.clone(),
                        vec![
                            ("instructions".into(), c.instructions),
                            ("memory_accesses".into(), c.memory_accesses),
                            ("d1_misses".into(), c.d1_misses),
                            ("ll_misses".into(), c.ll_misses),
                        ],
                    )
                })
                .collect(),
        }
    }
}

/// Self cost per object file in a callgrind output (event name → total).
pub fn callgrind_objects(text: &str) -> Result<BTreeMap<String, BTreeMap<String, f64>>, String> {
    let mut events: Vec<String> = vec![];
    // Compressed names: "(id) name" defines, "(id)" refers; objects, files
    // and functions each have their own id space.
    let mut names: [BTreeMap<String, String>; 3] = Default::default();
    let mut ob = String::new();
    let mut skip_next = false;
    let mut out: BTreeMap<String, BTreeMap<String, f64>> = BTreeMap::new();
    let mut resolve = |space: usize, v: &str| -> String {
        let v = v.trim();
        if let Some(rest) = v.strip_prefix('(') {
            if let Some(end) = rest.find(')') {
                let id = &rest[..end];
                let name = rest[end + 1..].trim();
                if !name.is_empty() {
                    names[space].insert(id.to_string(), name.to_string());
                    return name.to_string();
                }
                return names[space].get(id).cloned().unwrap_or_default();
            }
        }
        v.to_string()
    };
    for line in text.lines() {
        let kv = line.split_once('=');
        match kv {
            _ if line.starts_with("events:") => {
                events = line["events:".len()..]
                    .split_whitespace()
                    .map(String::from)
                    .collect();
            }
            Some(("ob", v)) => ob = resolve(0, v),
            Some(("cob", v)) => {
                resolve(0, v);
            }
            Some(("fl" | "fi" | "fe" | "cfi" | "cfl", v)) => {
                resolve(1, v);
            }
            Some(("fn" | "cfn", v)) => {
                resolve(2, v);
            }
            Some(("calls", _)) => skip_next = true,
            _ if line
                .starts_with(|c: char| c.is_ascii_digit() || c == '+' || c == '-' || c == '*') =>
            {
                if skip_next {
                    skip_next = false;
                    continue;
                }
                let mut it = line.split_whitespace();
                it.next(); // position
                let entry = out.entry(ob.clone()).or_default();
                for (k, v) in it.enumerate() {
                    let v: f64 = v.parse().map_err(|_| format!("bad cost line `{line}`"))?;
                    if let Some(e) = events.get(k) {
                        *entry.entry(e.clone()).or_default() += v;
                    }
                }
            }
            _ => {}
        }
    }
    if events.is_empty() {
        return Err("no `events:` line: not a callgrind profile".into());
    }
    Ok(out)
}

/// Per-NF cost of `chain` (at `chain_path`) per input packet: the chain in
/// the reference executor under callgrind over `COST_PACKETS` packets of
/// its traffic profile. `nfc_exe` is the `nfc` binary.
pub fn measure_costs(
    chain: &ChainSpec,
    chain_path: &Path,
    nfc_exe: &Path,
    cache_dir: &Path,
) -> Result<Vec<NfCost>, Failure> {
    let Traffic::Synthetic(mut spec) = chain.traffic.clone() else {
        return Err(unavailable(
            "the predict stage measures NF costs over the chain's synthetic traffic profile; this chain names a pcap".into(),
            "give the chain a `traffic: synthetic:` profile",
        ));
    };
    let work = cache_dir.join(format!("predict-{}", std::process::id()));
    std::fs::create_dir_all(&work)
        .map_err(|e| Failure::io(format!("creating {}", work.display()), e))?;
    struct Rm(PathBuf);
    impl Drop for Rm {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
    let _rm = Rm(work.clone());
    spec.packets = spec.packets.min(COST_PACKETS);
    let pcap = work.join("traffic.pcap");
    let summary = flash_rt::trace::generate(&spec, &pcap).map_err(|e| Failure::Internal {
        stage: "predict",
        message: format!("generating the traffic profile: {e}"),
    })?;
    let packets = summary.packets.max(1) as f64;
    let out = work.join("callgrind.out");
    let res = Command::new("valgrind")
        .args(["--tool=callgrind", "--cache-sim=yes"])
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg(nfc_exe)
        .arg("run")
        .arg(chain_path)
        .arg("--pcap")
        .arg(&pcap)
        .args(["--sharing", "all-shared", "--workers", "1", "--cache-dir"])
        .arg(cache_dir)
        .output()
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                unavailable(
                    "valgrind is not installed: the predict stage measures NF costs with callgrind"
                        .into(),
                    "install it with `cargo xtask setup`",
                )
            } else {
                Failure::io("running valgrind", e)
            }
        })?;
    if !res.status.success() {
        return Err(Failure::Internal {
            stage: "predict",
            message: format!(
                "the chain did not run under callgrind: {}",
                String::from_utf8_lossy(&res.stderr)
                    .lines()
                    .rev()
                    .take(8)
                    .collect::<Vec<_>>()
                    .join(" | ")
            ),
        });
    }
    let text = std::fs::read_to_string(&out)
        .map_err(|e| Failure::io(format!("reading {}", out.display()), e))?;
    let objs = callgrind_objects(&text).map_err(|m| Failure::Internal {
        stage: "predict",
        message: m,
    })?;
    // Private NF copies: nfc-nf-<pid>-<seq>-<stem>.so, the stem being
    // the instance's object name (its id for built NFs). An NF none of whose
    // code ran over the profile has no cost line at all: zero.
    let copies: Vec<(u64, String, &BTreeMap<String, f64>)> = objs
        .iter()
        .filter_map(|(path, cost)| {
            let file = Path::new(path).file_name()?.to_str()?;
            let rest = file
                .strip_prefix(nfc_net::abi::PRIVATE_COPY_PREFIX)?
                .strip_suffix(".so")?;
            let mut parts = rest.splitn(3, '-');
            let _pid = parts.next()?;
            let seq: u64 = parts.next()?.parse().ok()?;
            Some((seq, parts.next()?.to_string(), cost))
        })
        .collect();
    if copies.len() > chain.nfs.len() {
        return Err(Failure::Internal {
            stage: "predict",
            message: format!(
                "callgrind saw {} NF objects for {} NFs",
                copies.len(),
                chain.nfs.len()
            ),
        });
    }
    let empty = BTreeMap::new();
    let get = |c: &BTreeMap<String, f64>, k: &[&str]| {
        k.iter()
            .map(|k| c.get(*k).copied().unwrap_or(0.0))
            .sum::<f64>()
            / packets
    };
    let mut costs = vec![];
    for nf in &chain.nfs {
        let id = nf.id.0.as_str();
        // The executor's file-name form of the id (flash-rt offline/abi.rs).
        let stem: String = id
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .take(40)
            .collect();
        let matching: Vec<&(u64, String, &BTreeMap<String, f64>)> =
            copies.iter().filter(|(_, s, _)| *s == stem).collect();
        let c = match matching.as_slice() {
            [one] => one.2,
            [] => &empty,
            _ => {
                return Err(Failure::Internal {
                    stage: "predict",
                    message: format!(
                        "several NF objects in the callgrind profile are named `{id}`"
                    ),
                })
            }
        };
        costs.push(NfCost {
            nf: id.to_string(),
            instructions: get(c, &["Ir"]),
            memory_accesses: get(c, &["Dr", "Dw"]),
            d1_misses: get(c, &["D1mr", "D1mw"]),
            ll_misses: get(c, &["DLmr", "DLmw"]),
        });
    }
    if costs.iter().all(|c| c.instructions == 0.0) {
        return Err(Failure::Internal {
            stage: "predict",
            message: "no NF object of the chain appears in the callgrind profile".into(),
        });
    }
    Ok(costs)
}

/// Seconds of traffic time the rate replay runs before it measures: long
/// enough for a token bucket's burst (the policer's default is 0.1 s of
/// its rate) to be spent at any rate above the bucket's.
pub const REPLAY_WARMUP_S: f64 = 1.0;
/// Seconds of traffic time the rate replay measures the pass fraction over.
pub const REPLAY_MEASURE_S: f64 = 1.0;
/// Packets of the traffic profile the replay cycles through (the profile's
/// own count when smaller): the flows, sizes and mix of the profile, sent
/// over and over as flash-rt's AF_XDP load generator sends its frames (it
/// pre-builds one per UMEM frame, `LoadGenConfig::default().frames`, the
/// same number, so the bench's line measurement sends these packets).
pub const REPLAY_PROFILE_PACKETS: u64 = 4096;
/// Packets per executor call (memory bound; the state carries over).
const REPLAY_CHUNK: u64 = 131_072;
/// The replay refuses to simulate more packets than this (a capacity this
/// high is not a rate this machine reaches); the caller says so.
pub const REPLAY_MAX_PACKETS: u64 = 20_000_000;

/// What the chain's semantics let through at an offered rate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RateReplay {
    pub offered_pps: f64,
    /// Input packets in the measurement window.
    pub measured_packets: u64,
    /// Packets that left the chain (any exit) in the measurement window.
    pub exited: u64,
    /// exited / measured_packets (may exceed 1 when an NF copies packets
    /// to several successors).
    pub pass_fraction: f64,
    /// Drops per NF in the measurement window (NF_DROP and invalid verdicts).
    pub drops: Vec<(String, u64)>,
}

impl RateReplay {
    /// The NF that dropped the most in the measurement window.
    pub fn bottleneck(&self) -> Option<String> {
        self.drops
            .iter()
            .filter(|(_, d)| *d > 0)
            .max_by_key(|(_, d)| *d)
            .map(|(nf, _)| nf.clone())
    }
}

/// Run `chain` in the reference executor (one worker, every NF shared)
/// over its synthetic traffic profile replayed at `offered_pps`, packet
/// timestamps `1/offered_pps` apart: [`REPLAY_WARMUP_S`] seconds of warm-up
/// then [`REPLAY_MEASURE_S`] seconds measured, the state carried through.
pub fn replay_at_rate(
    chain: &ChainSpec,
    ws: &Workspace,
    offered_pps: f64,
) -> Result<RateReplay, Failure> {
    let Traffic::Synthetic(mut spec) = chain.traffic.clone() else {
        return Err(unavailable(
            "the predict stage replays the chain's synthetic traffic profile; this chain names a pcap".into(),
            "give the chain a `traffic: synthetic:` profile",
        ));
    };
    if !(offered_pps.is_finite() && offered_pps > 0.0) {
        return Err(Failure::Internal {
            stage: "predict",
            message: format!("cannot replay traffic at {offered_pps} packets per second"),
        });
    }
    let warm = (offered_pps * REPLAY_WARMUP_S).round() as u64;
    let measured = ((offered_pps * REPLAY_MEASURE_S).round() as u64).max(1);
    if warm + measured > REPLAY_MAX_PACKETS {
        return Err(Failure::Internal {
            stage: "predict",
            message: format!(
                "replaying {:.0} s at {offered_pps:.0} pps would take {} packets (limit {REPLAY_MAX_PACKETS})",
                REPLAY_WARMUP_S + REPLAY_MEASURE_S,
                warm + measured
            ),
        });
    }
    spec.packets = spec.packets.clamp(1, REPLAY_PROFILE_PACKETS);
    let timing = flash_rt::trace::TraceTiming::default();
    let (base, _) =
        flash_rt::trace::generate_packets_with(&spec, timing).map_err(|e| Failure::Internal {
            stage: "predict",
            message: format!("generating the traffic profile: {e}"),
        })?;
    let objects = driver::build_objects(chain, ws)?;
    let exec = driver::exec_chain(chain, &objects, None);
    let scratch = ws.dir.join("scratch");
    std::fs::create_dir_all(&scratch)
        .map_err(|e| Failure::io("creating the scratch directory", e))?;
    let opts = flash_rt::offline::ExecOptions {
        scratch_dir: Some(scratch),
        ..Default::default()
    };
    let mut ex = flash_rt::offline::Executor::new(&exec, &opts)
        .map_err(|e| driver::exec_failure(e, chain))?;
    let gap = 1e9 / offered_pps;
    let mut drops: Vec<(String, u64)> = chain.nfs.iter().map(|n| (n.id.0.clone(), 0)).collect();
    let mut exited = 0u64;
    let mut next = 0u64;
    let total = warm + measured;
    while next < total {
        // Chunks never straddle the start of the measurement window.
        let end = if next < warm {
            (next + REPLAY_CHUNK).min(warm)
        } else {
            (next + REPLAY_CHUNK).min(total)
        };
        let mut pk = flash_rt::trace::Packets::with_capacity(
            (end - next) as usize,
            (end - next) as usize * (base.total_bytes() as usize / base.len() + 1),
        );
        for j in next..end {
            let p = base
                .get((j % base.len() as u64) as usize)
                .expect("in range");
            pk.push(timing.start_ns + (j as f64 * gap) as u64, p.data);
        }
        let run = ex
            .run_continued(&pk)
            .map_err(|e| driver::exec_failure(e, chain))?;
        if next >= warm {
            exited += run.report.exited;
            for (d, nf) in drops.iter_mut().zip(&run.report.nfs) {
                d.1 += nf.drops + nf.invalid_verdicts;
            }
        }
        next = end;
    }
    Ok(RateReplay {
        offered_pps,
        measured_packets: measured,
        exited,
        pass_fraction: exited as f64 / measured as f64,
        drops,
    })
}

/// How much more of the traffic must be dropped at the capacity than at a
/// tenth of it for the drops to count as a rate limit (and their NF as the
/// bottleneck) rather than a rule that drops at every rate.
pub const RATE_LIMITED_ABOVE: f64 = 0.01;

/// The prediction capped by what the chain lets through when offered its
/// capacity: min(capacity, capacity × pass fraction). A replay in which
/// every packet left (or more did, by copies) leaves it unchanged. `low`,
/// the same replay at a tenth of the rate, tells a rate limit from a
/// rule: the NF whose drops per packet grow the most with the rate becomes
/// the bottleneck when the pass fraction falls by more than
/// [`RATE_LIMITED_ABOVE`]; drops that do not depend on the rate (a
/// firewall's rules) lower the delivered rate but leave the bottleneck to
/// the cost model. Without `low` every drop counts as rate-dependent.
pub fn apply_cap(mut p: Prediction, replay: &RateReplay, low: Option<&RateReplay>) -> Prediction {
    let capacity = p.throughput_mpps;
    p.capacity_mpps = Some(capacity);
    if replay.pass_fraction < 1.0 {
        let delivered = capacity * replay.pass_fraction;
        let rate_limited =
            low.is_none_or(|l| l.pass_fraction - replay.pass_fraction > RATE_LIMITED_ABOVE);
        // Drops per packet at the capacity beyond those at the low rate.
        let growth = |nf: &str, d: u64| {
            let at_low = low
                .and_then(|l| l.drops.iter().find(|(n, _)| n == nf))
                .map_or(0.0, |(_, dl)| {
                    *dl as f64 / low.map_or(1, |l| l.measured_packets) as f64
                });
            d as f64 / replay.measured_packets as f64 - at_low
        };
        let bottleneck = replay
            .drops
            .iter()
            .filter(|(_, d)| *d > 0)
            .max_by(|a, b| growth(&a.0, a.1).total_cmp(&growth(&b.0, b.1)))
            .map(|(nf, _)| nf.clone());
        p.cap = Some(ThroughputCap {
            offered_mpps: replay.offered_pps / 1e6,
            pass_fraction: replay.pass_fraction,
            delivered_mpps: delivered,
            bottleneck: bottleneck.clone(),
            drops: replay.drops.clone(),
            pass_fraction_low: low.map(|l| l.pass_fraction),
            rate_limited,
            source: format!(
                "reference executor (native, 1 worker) over the chain's traffic profile replayed at {:.0} pps, packet timestamps {:.0} ns apart: {:.0} s warm-up, then {} of {} packets left the chain in {:.0} s{}",
                replay.offered_pps,
                1e9 / replay.offered_pps,
                REPLAY_WARMUP_S,
                replay.exited,
                replay.measured_packets,
                REPLAY_MEASURE_S,
                match low {
                    Some(l) => format!("; at {:.0} pps {} of {}", l.offered_pps, l.exited, l.measured_packets),
                    None => String::new(),
                }
            ),
        });
        p.throughput_mpps = delivered;
        if rate_limited && bottleneck.is_some() {
            p.bottleneck = bottleneck;
        }
    }
    p
}

/// How long one machine probe runs (on every CPU).
pub const PROBE_WINDOW: std::time::Duration = std::time::Duration::from_millis(300);
/// Probes the predict stage takes, one after the other; it uses their
/// median (one 300 ms probe on a shared machine is off by up to 2×).
pub const PREDICTION_PROBES: usize = 5;

/// The machine now: the median (by wall-clock ns per unit) of
/// [`PREDICTION_PROBES`] probes of [`PROBE_WINDOW`].
pub fn probe_machine() -> nfc_machine_probe::MachineProbe {
    let mut v: Vec<nfc_machine_probe::MachineProbe> = (0..PREDICTION_PROBES)
        .map(|_| nfc_machine_probe::probe_cpus(PROBE_WINDOW))
        .collect();
    v.sort_by(|a, b| a.ns_per_unit.total_cmp(&b.ns_per_unit));
    v[v.len() / 2]
}

/// The model to use: `path` (e.g. a fresh one from the bench) or the one
/// nfc ships.
pub fn load_model(path: Option<&Path>) -> Result<(CostModel, String), Failure> {
    let (text, name) = match path {
        Some(p) => (
            std::fs::read_to_string(p)
                .map_err(|e| Failure::io(format!("reading {}", p.display()), e))?,
            p.display().to_string(),
        ),
        None => (
            SHIPPED_MODEL.to_string(),
            "data/flash-cost-model.json (shipped)".to_string(),
        ),
    };
    let model: Option<CostModel> = serde_json::from_str(&text).map_err(|e| {
        unavailable(
            format!("{name} is not a cost model: {e}"),
            "write one with `cargo xtask bench profile-data`",
        )
    })?;
    let model = model.ok_or_else(|| {
        unavailable(
            format!("{name} holds no calibration yet"),
            "calibrate on this machine with `cargo xtask bench profile-data` (as root) and pass --cost-model target/nfc-bench/own-data/cost-model.json",
        )
    })?;
    Ok((model, name))
}

/// The predict stage: NF costs under callgrind, then the model.
pub fn predict_chain(
    chain: &ChainSpec,
    chain_path: &Path,
    nfc_exe: &Path,
    cache_dir: &Path,
    model: Option<&Path>,
) -> Result<Prediction, Failure> {
    let (m, name) = load_model(model)?;
    let costs = measure_costs(chain, chain_path, nfc_exe, cache_dir)?;
    // The machine as it is now, after callgrind has finished: what the
    // model's costs are scaled to.
    let probe = m.probe_reference.is_some().then(probe_machine);
    let p = m.predict(
        &costs,
        &format!(
            "flash cost model (per packet + per NF host + per callgrind instruction{}), {name}, capped by a time-faithful replay of the chain",
            match &probe {
                Some(_) => format!(
                    ", × (machine probe / calibration probe)^{:.2}",
                    m.load_exponent
                ),
                None => String::new(),
            }
        ),
        probe.as_ref(),
    );
    let ws = Workspace::new(cache_dir);
    let capacity = p.throughput_mpps * 1e6;
    let replay = replay_at_rate(chain, &ws, capacity)?;
    let low = if replay.pass_fraction < 1.0 {
        Some(replay_at_rate(chain, &ws, capacity / 10.0)?)
    } else {
        None
    };
    Ok(apply_cap(p, &replay, low.as_ref()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn callgrind_self_cost_per_object_skips_inclusive_call_costs() {
        // Ids of objects and functions are separate spaces: fn=(2) must not rename ob (2).
        let text = "events: Ir Dr\nob=(1) /a.so\nfl=(1) a.c\nfn=(1) f\n3 10 2\n+1 5\ncalls=1 0\ncob=(2) /b.so\ncfn=(2) g\n4 1000 100\nob=(2)\nfn=(2)\n1 7 1\n";
        let o = callgrind_objects(text).unwrap();
        assert_eq!(o["/a.so"]["Ir"], 15.0);
        assert_eq!(o["/a.so"]["Dr"], 2.0);
        assert_eq!(o["/b.so"]["Ir"], 7.0);
        assert!(callgrind_objects("3 4\n").is_err());
    }

    fn cost(nf: &str, i: f64) -> NfCost {
        NfCost {
            nf: nf.into(),
            instructions: i,
            memory_accesses: 0.0,
            d1_misses: 0.0,
            ll_misses: 0.0,
        }
    }

    #[test]
    fn fit_recovers_a_linear_cost_and_reports_its_loco_error() {
        // t = 1000 ns per packet + 300 ns per hop + 2 ns per instruction.
        let chains: Vec<(String, Vec<NfCost>, f64)> =
            [(2, 100.0), (3, 400.0), (5, 250.0), (1, 900.0), (4, 1500.0)]
                .iter()
                .enumerate()
                .map(|(k, &(h, i))| {
                    let costs: Vec<NfCost> = (0..h)
                        .map(|j| cost(&format!("n{j}"), i / h as f64))
                        .collect();
                    let t = 1000.0 + 300.0 * h as f64 + 2.0 * i;
                    (format!("c{k}"), costs, 1e9 / t)
                })
                .collect();
        let m = CostModel::fit(&chains, "test".into()).unwrap();
        assert!(
            (m.ns_base - 1000.0).abs() < 1e-5
                && (m.ns_per_hop - 300.0).abs() < 1e-6
                && (m.ns_per_instruction - 2.0).abs() < 1e-9,
            "{m:?}"
        );
        assert!(m.error < 1e-9, "{m:?}");
        assert_eq!(m.loco_predictions.len(), 5);
        // Fewer than 3 chains cannot give a leave-one-chain-out error.
        assert!(CostModel::fit(&chains[..2], "test".into()).is_none());
        let p = m.predict(&chains[1].1, "t", None);
        assert!((p.throughput_mpps - chains[1].2 / 1e6).abs() < 1e-9);
        // A chain that does not follow the model shows up in the error.
        let mut bad = chains.clone();
        bad[0].2 *= 3.0;
        assert!(CostModel::fit(&bad, "test".into()).unwrap().error > 0.2);
    }

    #[test]
    fn capped_chains_stay_out_of_the_fit_and_their_capped_error_counts() {
        // t = 1000 ns + 2 ns per instruction; a fifth chain measured far
        // below its capacity because its semantics drop 90% of it.
        let mk = |k: usize, i: f64, pps: f64| (format!("c{k}"), vec![cost("n", i)], pps);
        let chains: Vec<_> = [100.0, 400.0, 900.0, 1500.0]
            .iter()
            .enumerate()
            .map(|(k, &i)| mk(k, i, 1e9 / (1000.0 + 2.0 * i)))
            .collect();
        let capacity = 1e9 / (1000.0 + 2.0 * 250.0);
        let capped = vec![(
            "cap".to_string(),
            vec![cost("pol", 250.0)],
            capacity * 0.1,
            0.1,
        )];
        let deliver = |name: &str, pps: f64| if name == "cap" { pps * 0.1 } else { pps };
        let m = CostModel::fit_capped(&chains, &capped, deliver, "t".into()).unwrap();
        // The fit is that of the CPU-bound chains alone.
        assert!((m.ns_base - 1000.0).abs() < 1e-5 && (m.ns_per_instruction - 2.0).abs() < 1e-9);
        assert!(!m.calibrated_on.contains_key("cap") && m.capped["cap"] == 0.1);
        assert!(m.loco_errors["cap"] < 1e-9, "{m:?}");
        // A cap the replay got wrong shows up in the reported error.
        let wrong = |name: &str, pps: f64| if name == "cap" { pps * 0.2 } else { pps };
        let m = CostModel::fit_capped(&chains, &capped, wrong, "t".into()).unwrap();
        assert!((m.error - 1.0).abs() < 1e-6, "{m:?}");
    }

    fn replay(offered: f64, exited: u64, drops: &[(&str, u64)]) -> RateReplay {
        RateReplay {
            offered_pps: offered,
            measured_packets: 1000,
            exited,
            pass_fraction: exited as f64 / 1000.0,
            drops: drops.iter().map(|(n, d)| (n.to_string(), *d)).collect(),
        }
    }

    #[test]
    fn drops_by_rule_lower_the_rate_but_only_a_rate_limit_names_the_bottleneck() {
        let p = CostModel::fit(
            &[
                ("a".into(), vec![cost("fw", 100.0), cost("lb", 900.0)], 1e5),
                ("b".into(), vec![cost("fw", 200.0)], 2e5),
                ("c".into(), vec![cost("lb", 50.0)], 3e5),
            ],
            "t".into(),
        )
        .unwrap()
        .predict(&[cost("fw", 100.0), cost("lb", 900.0)], "t", None);
        assert_eq!(p.bottleneck.as_deref(), Some("lb"));
        let c = p.throughput_mpps;
        // A firewall dropping 30% at every rate: delivered 70%, lb stays.
        let rule = replay(c * 1e6, 700, &[("fw", 300), ("lb", 0)]);
        let low = replay(c * 1e5, 700, &[("fw", 300), ("lb", 0)]);
        let q = apply_cap(p.clone(), &rule, Some(&low));
        assert!((q.throughput_mpps - 0.7 * c).abs() < 1e-12);
        assert!(!q.cap.as_ref().unwrap().rate_limited);
        assert_eq!(q.bottleneck.as_deref(), Some("lb"));
        // The same firewall plus a limiter in lb that bites at the rate.
        let both = replay(c * 1e6, 400, &[("fw", 300), ("lb", 300)]);
        let q = apply_cap(p, &both, Some(&low));
        assert!(q.cap.as_ref().unwrap().rate_limited);
        assert_eq!(q.bottleneck.as_deref(), Some("lb"));
        assert_eq!(q.cap.unwrap().bottleneck.as_deref(), Some("lb"));
    }

    #[test]
    fn fit_measured_recovers_how_time_scales_with_the_machine_probe() {
        // t = (1000 ns + 2 ns per instruction) × (probe / 100)^1, each
        // chain measured under a quiet (probe ≈ 100) and a loaded (≈ 300)
        // condition, three windows each.
        let instr = [100.0, 400.0, 900.0, 1500.0];
        let mut rows = vec![];
        for (k, i) in instr.iter().enumerate() {
            for (cond, probes) in [
                ("quiet", [90.0, 100.0, 110.0]),
                ("hog", [250.0, 300.0, 350.0]),
            ] {
                rows.push(Measured {
                    chain: format!("c{k}"),
                    costs: vec![cost("n", *i)],
                    condition: cond.into(),
                    windows: probes
                        .iter()
                        .map(|p| (1e9 / ((1000.0 + 2.0 * i) * p / 100.0), *p))
                        .collect(),
                    probes: vec![],
                });
            }
        }
        let m = CostModel::fit_measured(&rows, &BTreeMap::new(), |_, pps| pps, "t".into()).unwrap();
        let r = m.probe_reference.unwrap();
        assert!((m.load_exponent - 1.0).abs() < 1e-9, "{m:?}");
        // The costs hold at the reference probe.
        assert!((m.ns_base * 100.0 / r - 1000.0).abs() < 1e-3, "{m:?}");
        assert!(
            (m.ns_per_instruction * 100.0 / r - 2.0).abs() < 1e-6,
            "{m:?}"
        );
        assert!(m.error < 1e-6, "{m:?}");
        assert_eq!(m.loco_errors_by_condition["hog"].len(), 4);
        // A prediction on a machine probed at 3× the reference is 3× slower.
        let probe = |ns: f64| nfc_machine_probe::MachineProbe {
            version: nfc_machine_probe::PROBE_VERSION,
            ns_per_unit: ns,
            cpu_ns_per_unit: ns,
            cpu_share: 1.0,
            threads: 2,
            units: 1,
            window_s: 0.3,
            loadavg_1m: None,
        };
        let fast = m.predict(&[cost("n", 400.0)], "t", Some(&probe(r)));
        let slow = m.predict(&[cost("n", 400.0)], "t", Some(&probe(3.0 * r)));
        assert!((fast.throughput_mpps / slow.throughput_mpps - 3.0).abs() < 1e-9);
        assert_eq!(slow.machine.as_ref().unwrap().scale, 3.0);
        // A probe of another unit of work is not comparable: no scaling.
        let other = nfc_machine_probe::MachineProbe {
            version: 0,
            ..probe(3.0 * r)
        };
        let p = m.predict(&[cost("n", 400.0)], "t", Some(&other));
        assert!(p.machine.is_none() && (p.throughput_mpps - fast.throughput_mpps).abs() < 1e-12);
        // Without the probe the same data fit worse: the error shows it.
        let flat: Vec<Measured> = rows
            .iter()
            .map(|r| Measured {
                windows: r.windows.iter().map(|w| (w.0, 1.0)).collect(),
                probes: vec![],
                ..r.clone()
            })
            .collect();
        let f = CostModel::fit_measured(&flat, &BTreeMap::new(), |_, pps| pps, "t".into()).unwrap();
        assert!(f.error > 0.5, "{f:?}");
    }

    #[test]
    fn fit_keeps_every_parameter_non_negative() {
        // Times that fall with more instructions: an unconstrained fit
        // would give a negative cost per instruction.
        let chains: Vec<(String, Vec<NfCost>, f64)> = [
            (1, 100.0, 5000.0),
            (1, 900.0, 4000.0),
            (3, 200.0, 9000.0),
            (2, 50.0, 7000.0),
        ]
        .iter()
        .enumerate()
        .map(|(k, &(h, i, t))| {
            let costs = (0..h)
                .map(|j| cost(&format!("n{j}"), i / h as f64))
                .collect();
            (format!("c{k}"), costs, 1e9 / t)
        })
        .collect();
        let m = CostModel::fit(&chains, "test".into()).unwrap();
        assert!(
            m.ns_base >= 0.0 && m.ns_per_hop >= 0.0 && m.ns_per_instruction >= 0.0,
            "{m:?}"
        );
        assert_eq!(m.ns_per_instruction, 0.0, "{m:?}");
        assert!(m.error.is_finite() && m.error > 0.0);
    }
}
