//! Model inputs derived from a Clara program description (`choices` flags and
//! `configs` sizes), in one place so training, evaluation and saved models
//! agree on names and order.
//!
//! Clara's models take the synthetic generator's knobs directly, plus the
//! quantities its text names: compute instructions, memory accesses and their
//! ratio, the arithmetic intensity. The released data carries knobs, not
//! instruction counts, so the derived quantities here are documented proxies
//! (docs/smartnic.md):
//!
//! - `compute_work` = Σ_k ISCOMPUTE_k · TUNECOMPUTE_k (size of the synthetic compute blocks present),
//! - `accelerator_calls` = Σ_k ISACCELERATE_k · TUNEACCELERATE_k,
//! - `memory_work` = ISIPFILTER1 · RULE_NUM1 + ISIPFILTER2 · RULE_NUM2 + Σ_j BUCKET_SIZE_j + elements
//!   (rule scans, bucket probes, and one state access per Click element present),
//! - `arithmetic_intensity` = compute_work / memory_work.
//!
//! When issue 19's IR-level predictor exists, a chain NF's predicted compute
//! instructions and memory accesses take the place of these proxies
//! ([`ProgramProfile`]); until then a chain NF's profile is unknown.

use crate::clara_data::Program;

const ELEMENTS: [&str; 10] = [
    "ISIPFILTER1",
    "ISIPFILTER2",
    "ISIPREWRITER",
    "ISAVCOUNTER",
    "ISCOUNTER",
    "ISFTPPORTMAPPER",
    "ISWEBGEN",
    "ISUDPIPENCAP",
    "ISTCPDEMUX",
    "ISTCPCONN",
];

/// Names of the `choices` flags, in file order (35 for scale-out, the first 30 for colocation).
pub fn choice_names(n: usize) -> Vec<String> {
    let mut v: Vec<String> = ELEMENTS.iter().map(|s| s.to_string()).collect();
    v.extend((1..=10).map(|k| format!("ISCOMPUTE{k}")));
    v.extend((1..=10).map(|k| format!("ISACCELERATE{k}")));
    v.extend((0..5).map(|k| format!("ISIMEM{k}")));
    v.truncate(n);
    v
}

/// Names of the `configs` integers, in file order (32 for scale-out, the first 27 for colocation).
pub fn config_names(n: usize) -> Vec<String> {
    let mut v = vec!["RULE_NUM1".to_string(), "RULE_NUM2".to_string()];
    v.extend((1..=5).map(|k| format!("BUCKET_SIZE{k}")));
    v.extend((1..=10).map(|k| format!("TUNECOMPUTE{k}")));
    v.extend((1..=10).map(|k| format!("TUNEACCELERATE{k}")));
    v.extend((0..5).map(|k| format!("TUNEIMEM{k}")));
    v.truncate(n);
    v
}

/// What Clara's text says drives performance, per NF. Every field is a
/// per-packet quantity; `None` means unknown (no IR-level prediction yet).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ProgramProfile {
    pub compute_work: f64,
    pub accelerator_calls: f64,
    pub memory_work: f64,
    pub elements: f64,
    pub imem_structures: f64,
}

impl ProgramProfile {
    pub const NAMES: [&'static str; 6] = [
        "compute_work",
        "accelerator_calls",
        "memory_work",
        "elements",
        "imem_structures",
        "arithmetic_intensity",
    ];

    /// The documented proxies of a Clara program description.
    pub fn of(p: &Program) -> Self {
        let flag = |k: usize| p.choices.get(k).copied().unwrap_or(0) as f64;
        let conf = |k: usize| p.configs.get(k).copied().unwrap_or(0) as f64;
        let compute_work = (0..10).map(|k| flag(10 + k) * conf(7 + k)).sum();
        let accelerator_calls = (0..10).map(|k| flag(20 + k) * conf(17 + k)).sum();
        let elements: f64 = (0..10).map(flag).sum();
        let buckets: f64 = (2..7).map(conf).sum();
        let memory_work = flag(0) * conf(0) + flag(1) * conf(1) + buckets + elements;
        let imem_structures = (30..35).map(flag).sum();
        ProgramProfile {
            compute_work,
            accelerator_calls,
            memory_work,
            elements,
            imem_structures,
        }
    }

    pub fn arithmetic_intensity(&self) -> f64 {
        self.compute_work / self.memory_work.max(1.0)
    }

    pub fn values(&self) -> [f64; 6] {
        [
            self.compute_work,
            self.accelerator_calls,
            self.memory_work,
            self.elements,
            self.imem_structures,
            self.arithmetic_intensity(),
        ]
    }
}

/// Feature names of a scale-out row: raw knobs, derived profile, core count.
pub fn scale_out_feature_names(choices: usize, configs: usize) -> Vec<String> {
    let mut v = choice_names(choices);
    v.extend(config_names(configs));
    v.extend(ProgramProfile::NAMES.iter().map(|s| s.to_string()));
    v.push("cores".to_string());
    v
}

/// One scale-out row: the NF's program at a core count.
pub fn scale_out_row(p: &Program, cores: u32) -> Vec<f64> {
    let mut v: Vec<f64> = p.choices.iter().map(|&c| c as f64).collect();
    v.extend(p.configs.iter().map(|&c| c as f64));
    v.extend(ProgramProfile::of(p).values());
    v.push(cores as f64);
    v
}

/// Feature names of a colocation candidate (a pair of NFs), symmetric in the pair.
pub fn pair_feature_names() -> Vec<String> {
    let mut v = Vec::new();
    for n in ProgramProfile::NAMES {
        v.push(format!("{n}_min"));
        v.push(format!("{n}_max"));
        v.push(format!("{n}_sum"));
    }
    v.push("arithmetic_intensity_ratio".to_string());
    v.push("compute_work_ratio".to_string());
    for n in choice_names(30).into_iter().chain(config_names(27)) {
        v.push(format!("{n}_min"));
        v.push(format!("{n}_max"));
    }
    v
}

/// Features of colocating `a` and `b`: Clara's arithmetic intensity and compute
/// of each NF and their ratios, made order-free by min/max/sum.
pub fn pair_row(a: &Program, b: &Program) -> Vec<f64> {
    let (pa, pb) = (
        ProgramProfile::of(a).values(),
        ProgramProfile::of(b).values(),
    );
    let mut v = Vec::new();
    for k in 0..pa.len() {
        v.push(pa[k].min(pb[k]));
        v.push(pa[k].max(pb[k]));
        v.push(pa[k] + pb[k]);
    }
    let ratio = |x: f64, y: f64| (x.max(y) + 1e-3) / (x.min(y) + 1e-3);
    v.push(ratio(pa[5], pb[5]));
    v.push(ratio(pa[0], pb[0]));
    // The knobs themselves, order-free; missing ones (shorter vectors) are 0.
    let knobs = |p: &Program| -> Vec<f64> {
        let mut k: Vec<f64> = (0..30)
            .map(|i| p.choices.get(i).copied().unwrap_or(0) as f64)
            .collect();
        k.extend((0..27).map(|i| p.configs.get(i).copied().unwrap_or(0) as f64));
        k
    };
    for (x, y) in knobs(a).into_iter().zip(knobs(b)) {
        v.push(x.min(y));
        v.push(x.max(y));
    }
    v
}

/// What nfc measures of a chain NF, the inputs of [`ProgramProfile::from_measures`].
/// Per packet the NF processes.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct NfMeasures {
    /// Compute (non-memory) LLVM instructions executed per packet (the
    /// reducer's instrumented run, host `default<O2>` code).
    pub compute_instructions: f64,
    /// Loads and stores of state objects and globals per packet (same run).
    pub state_accesses: f64,
    /// Functions the accelerator classifier flags (CRC, LPM), each counted as one call per packet.
    pub accelerator_calls: f64,
    /// State objects the packet path touches.
    pub state_objects: f64,
    /// Of those, the ones the state placement puts on chip (CLS, CTM or IMEM).
    pub on_chip_objects: f64,
}

/// The assumed number of compute instructions per unit of Clara's
/// `TUNECOMPUTE` knob. Clara's generator is not released with the data, so
/// this is not calibrated: the core-count suggestion is reported with the
/// range it takes for ½× and 2× this value (docs/smartnic.md, "Chain NFs").
pub const COMPUTE_INSTRUCTIONS_PER_UNIT: f64 = 10.0;

impl ProgramProfile {
    /// The documented mapping from a chain NF's measurements to the proxies
    /// Clara's models see (docs/smartnic.md, "Chain NFs → model inputs"):
    ///
    /// - `compute_work` = compute instructions / `instructions_per_unit`,
    /// - `accelerator_calls` = flagged accelerator functions (one call each),
    /// - `memory_work` = state and global accesses (one access = one probe),
    /// - `elements` = state objects touched (each Click element of Clara's
    ///   generator carries one state structure), at least 1 and at most 10,
    /// - `imem_structures` = on-chip objects, at most 5.
    pub fn from_measures(m: &NfMeasures, instructions_per_unit: f64) -> Self {
        ProgramProfile {
            compute_work: m.compute_instructions / instructions_per_unit.max(1e-9),
            accelerator_calls: m.accelerator_calls,
            memory_work: m.state_accesses,
            elements: m.state_objects.clamp(1.0, 10.0),
            imem_structures: m.on_chip_objects.clamp(0.0, 5.0),
        }
    }
}
