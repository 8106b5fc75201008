//! Multicore scale-out (Clara §4.2): predict an NF's throughput and latency at
//! each core count, and suggest the core count at the knee of the curve.
//!
//! **The knee.** Clara suggests "the best throughput without latency
//! degradation" and plots throughput/latency ratio curves whose peak is the
//! suggestion (Fig. 11c–d). We take exactly that peak: the knee is the core
//! count maximising Kleinrock's *power*, throughput / latency, the classic
//! definition of the knee of a throughput–delay curve; ties go to fewer cores.
//! The measured best (`best_cores`) is the knee of the measured curve, the
//! suggestion (`suggested_cores`) the knee of the predicted one, and both are
//! chosen among the core counts the NF was measured at.
//!
//! Models predict ln(throughput) and ln(latency) (the ratio becomes a
//! difference, and NFs spanning orders of magnitude weigh alike).

use crate::clara_data::{Program, ScaleOutNf};
use crate::features::{self, ProgramProfile};
use crate::models::{ModelError, ModelKind, Params, Regressor};
use serde::{Deserialize, Serialize};

/// Format version of a saved model; bumped when the feature list changes meaning.
pub const MODEL_FORMAT: u32 = 1;

/// The core count maximising throughput / latency (ties → fewer cores).
pub fn knee(curve: &[(u32, f64, f64)]) -> Option<u32> {
    let mut best: Option<(u32, f64)> = None;
    for &(c, thr, lat) in curve {
        let power = thr / lat;
        if !power.is_finite() {
            continue;
        }
        match best {
            Some((bc, bp)) if power < bp || (power == bp && c >= bc) => {}
            _ => best = Some((c, power)),
        }
    }
    best.map(|b| b.0)
}

fn measured_curve(nf: &ScaleOutNf) -> Vec<(u32, f64, f64)> {
    nf.curve
        .iter()
        .map(|(&c, m)| (c, m.throughput, m.latency))
        .collect()
}

/// A scale-out NF with the workload it was measured under (0 = flow-cache hits, 1 = misses).
#[derive(Debug, Clone)]
pub struct LabelledNf {
    pub name: String,
    pub nf: ScaleOutNf,
    pub workload: f64,
}

/// A trained throughput + latency model with what it needs to be reapplied.
#[derive(Debug, Serialize, Deserialize)]
pub struct ScaleOutModel {
    pub format: u32,
    pub kind: ModelKind,
    pub params: Params,
    pub seed: u64,
    /// Input names in order; the last is `workload_miss` when the model uses the workload.
    pub features: Vec<String>,
    pub workload_feature: bool,
    /// Predicts ln(throughput in packets/s).
    pub throughput: Regressor,
    /// Predicts ln(latency).
    pub latency: Regressor,
}

fn row(p: &Program, cores: u32, workload: Option<f64>) -> Vec<f64> {
    let mut r = features::scale_out_row(p, cores);
    if let Some(w) = workload {
        r.push(w);
    }
    r
}

impl ScaleOutModel {
    pub fn train(
        kind: ModelKind,
        params: Params,
        nfs: &[LabelledNf],
        seed: u64,
        workload_feature: bool,
    ) -> Result<Self, ModelError> {
        let first = nfs.first().ok_or(ModelError::BadShape)?;
        let mut x = Vec::new();
        let (mut ythr, mut ylat) = (Vec::new(), Vec::new());
        for l in nfs {
            for (&c, m) in &l.nf.curve {
                x.push(row(
                    &l.nf.program,
                    c,
                    workload_feature.then_some(l.workload),
                ));
                ythr.push(m.throughput.ln());
                ylat.push(m.latency.ln());
            }
        }
        let mut names = features::scale_out_feature_names(
            first.nf.program.choices.len(),
            first.nf.program.configs.len(),
        );
        if workload_feature {
            names.push("workload_miss".to_string());
        }
        Ok(ScaleOutModel {
            format: MODEL_FORMAT,
            kind,
            params,
            seed,
            features: names,
            workload_feature,
            throughput: Regressor::fit(params, &x, &ythr, seed)?,
            latency: Regressor::fit(params, &x, &ylat, seed.wrapping_add(1))?,
        })
    }

    /// Predicted (cores, throughput, latency) at each of `cores`.
    pub fn predict_curve(
        &self,
        program: &Program,
        workload: f64,
        cores: &[u32],
    ) -> Vec<(u32, f64, f64)> {
        let x: Vec<Vec<f64>> = cores
            .iter()
            .map(|&c| row(program, c, self.workload_feature.then_some(workload)))
            .collect();
        let thr = self.throughput.predict(&x);
        let lat = self.latency.predict(&x);
        cores
            .iter()
            .zip(thr)
            .zip(lat)
            .map(|((&c, t), l)| (c, t.exp(), l.exp()))
            .collect()
    }

    /// Whether a program has the shape this model was trained on.
    pub fn accepts(&self, program: &Program) -> bool {
        let extra = usize::from(self.workload_feature);
        self.features.len()
            == features::scale_out_feature_names(program.choices.len(), program.configs.len()).len()
                + extra
    }

    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string(self)
    }

    pub fn from_json(s: &str) -> Result<Self, String> {
        let m: ScaleOutModel =
            serde_json::from_str(s).map_err(|e| format!("not a scale-out model: {e}"))?;
        if m.format != MODEL_FORMAT {
            return Err(format!(
                "model format {} is not the supported {MODEL_FORMAT}",
                m.format
            ));
        }
        Ok(m)
    }
}

/// The evaluation of one held-out NF.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct NfOutcome {
    pub nf: String,
    pub suggested_cores: u32,
    pub best_cores: u32,
    /// 1 − measured throughput at the suggested count / measured throughput at the best (measured knee).
    /// Negative when the suggestion over-provisions: more throughput, bought with latency.
    pub throughput_loss: f64,
    /// 1 − measured power (throughput/latency) at the suggested count / at the best; ≥ 0.
    pub power_loss: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ScaleOutReport {
    pub nfs: Vec<NfOutcome>,
    pub mean_throughput_loss: f64,
    pub mean_abs_throughput_loss: f64,
    pub mean_power_loss: f64,
    /// Fraction of NFs whose suggestion is exactly the measured best.
    pub exact: f64,
}

impl ScaleOutReport {
    pub fn from_outcomes(nfs: Vec<NfOutcome>) -> Self {
        let n = nfs.len().max(1) as f64;
        ScaleOutReport {
            mean_throughput_loss: nfs.iter().map(|o| o.throughput_loss).sum::<f64>() / n,
            mean_abs_throughput_loss: nfs.iter().map(|o| o.throughput_loss.abs()).sum::<f64>() / n,
            mean_power_loss: nfs.iter().map(|o| o.power_loss).sum::<f64>() / n,
            exact: nfs
                .iter()
                .filter(|o| o.suggested_cores == o.best_cores)
                .count() as f64
                / n,
            nfs,
        }
    }
}

/// Score a suggestion against an NF's measured curve.
pub fn outcome(nf: &LabelledNf, suggested: u32) -> NfOutcome {
    let curve = measured_curve(&nf.nf);
    let best = knee(&curve).unwrap_or(suggested);
    let at = |c: u32| nf.nf.curve.get(&c).copied();
    let (s, b) = (at(suggested), at(best));
    let (throughput_loss, power_loss) = match (s, b) {
        (Some(s), Some(b)) => (
            1.0 - s.throughput / b.throughput,
            1.0 - (s.throughput / s.latency) / (b.throughput / b.latency),
        ),
        _ => (f64::NAN, f64::NAN),
    };
    NfOutcome {
        nf: nf.name.clone(),
        suggested_cores: suggested,
        best_cores: best,
        throughput_loss,
        power_loss,
    }
}

/// How a core count is suggested: a learned model, or a constant rule (the baselines
/// that need no model: always the most cores measured, always the training set's most common knee).
pub enum Suggester<'a> {
    Model(&'a ScaleOutModel),
    MaxCores,
    Constant(u32),
}

impl Suggester<'_> {
    pub fn suggest(&self, nf: &LabelledNf) -> u32 {
        let cores: Vec<u32> = nf.nf.curve.keys().copied().collect();
        match self {
            Suggester::Model(m) => {
                knee(&m.predict_curve(&nf.nf.program, nf.workload, &cores)).unwrap_or(cores[0])
            }
            Suggester::MaxCores => *cores.last().unwrap_or(&0),
            // The measured count nearest the constant.
            Suggester::Constant(c) => cores
                .iter()
                .copied()
                .min_by_key(|k| (k.abs_diff(*c), *k))
                .unwrap_or(*c),
        }
    }
}

pub fn evaluate(s: &Suggester, nfs: &[LabelledNf]) -> ScaleOutReport {
    ScaleOutReport::from_outcomes(nfs.iter().map(|nf| outcome(nf, s.suggest(nf))).collect())
}

/// The most common measured knee.
pub fn most_common_knee(nfs: &[LabelledNf]) -> u32 {
    let mut counts = std::collections::BTreeMap::new();
    for nf in nfs {
        if let Some(k) = knee(&measured_curve(&nf.nf)) {
            *counts.entry(k).or_insert(0usize) += 1;
        }
    }
    counts
        .into_iter()
        .max_by_key(|&(k, n)| (n, std::cmp::Reverse(k)))
        .map(|(k, _)| k)
        .unwrap_or(1)
}

/// A split of NFs (never rows) into train, validation and test.
#[derive(Debug, Clone)]
pub struct Split {
    pub train: Vec<LabelledNf>,
    pub validation: Vec<LabelledNf>,
    pub test: Vec<LabelledNf>,
}

/// Deterministic split of each workload's NFs: 70% train, 15% validation, 15% test.
pub fn split_by_nf(nfs: &[LabelledNf], seed: u64) -> Split {
    use rand::{seq::SliceRandom, SeedableRng};
    let mut split = Split {
        train: Vec::new(),
        validation: Vec::new(),
        test: Vec::new(),
    };
    let mut workloads: Vec<u64> = nfs.iter().map(|n| n.workload.to_bits()).collect();
    workloads.sort_unstable();
    workloads.dedup();
    for w in workloads {
        let mut group: Vec<&LabelledNf> =
            nfs.iter().filter(|n| n.workload.to_bits() == w).collect();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ w);
        group.shuffle(&mut rng);
        let n = group.len();
        let (a, b) = (n * 70 / 100, n * 85 / 100);
        split.train.extend(group[..a].iter().map(|&x| x.clone()));
        split
            .validation
            .extend(group[a..b].iter().map(|&x| x.clone()));
        split.test.extend(group[b..].iter().map(|&x| x.clone()));
    }
    split
}

/// The chosen hyper-parameters of a kind, by mean power loss on the validation fold.
#[derive(Debug, Clone, Serialize)]
pub struct Selection {
    pub kind: ModelKind,
    pub params: Params,
    pub validation_power_loss: f64,
    pub tried: usize,
}

pub fn select(
    kind: ModelKind,
    train: &[LabelledNf],
    validation: &[LabelledNf],
    seed: u64,
    workload_feature: bool,
) -> Result<Selection, ModelError> {
    let mut best: Option<Selection> = None;
    let grid = kind.grid();
    for &params in &grid {
        let m = ScaleOutModel::train(kind, params, train, seed, workload_feature)?;
        let loss = evaluate(&Suggester::Model(&m), validation).mean_power_loss;
        if best.as_ref().is_none_or(|b| loss < b.validation_power_loss) {
            best = Some(Selection {
                kind,
                params,
                validation_power_loss: loss,
                tried: grid.len(),
            });
        }
    }
    best.ok_or(ModelError::BadShape)
}

/// The seed of the default models (`nfc smartnic`, the bench).
pub const DEFAULT_SEED: u64 = 20;

/// The default model: GBDT, hyper-parameters chosen on a validation fold of
/// `nfs` (split by NF), then trained on all of `nfs`. No workload input: one
/// model for hit and miss traffic (measured as accurate as a workload-aware
/// one on the held-out NFs, docs/smartnic.md), so data of unknown workload can
/// be evaluated.
pub fn train_default(
    nfs: &[LabelledNf],
    seed: u64,
) -> Result<(ScaleOutModel, Selection), ModelError> {
    let split = split_by_nf(nfs, seed);
    let mut fit_on = split.train;
    fit_on.extend(split.test);
    let sel = select(ModelKind::Gbdt, &fit_on, &split.validation, seed, false)?;
    Ok((
        ScaleOutModel::train(ModelKind::Gbdt, sel.params, nfs, seed, false)?,
        sel,
    ))
}

/// A core-count suggestion for an NF known only by its [`ProgramProfile`]
/// (a chain NF, not a Clara program): the knees the model predicts for the
/// `k` training programs nearest in profile space.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProfileSuggestion {
    /// The median knee of the neighbours (lower median).
    pub cores: u32,
    /// The neighbours' knees, first and third quartile.
    pub quartiles: (u32, u32),
    /// Every neighbour's knee.
    pub knees: Vec<u32>,
    /// Standardised distance of the nearest and the farthest neighbour (how far
    /// outside Clara's programs the NF is; 0 = the profile of a training program).
    pub distance: (f64, f64),
}

/// Suggest a core count for `profile` from the model's predicted curves of
/// the `k` training programs whose profiles are nearest (z-scored by the
/// training programs' spread), over the core counts `cores`. `None` when
/// there are no training programs or core counts.
pub fn suggest_for_profile(
    model: &ScaleOutModel,
    training: &[Program],
    profile: &ProgramProfile,
    cores: &[u32],
    k: usize,
) -> Option<ProfileSuggestion> {
    if training.is_empty() || cores.is_empty() {
        return None;
    }
    let rows: Vec<Vec<f64>> = training
        .iter()
        .map(|p| ProgramProfile::of(p).values().to_vec())
        .collect();
    let std = crate::models::Standardizer::fit(&rows);
    let target = std.apply(&profile.values());
    let mut dist: Vec<(f64, usize)> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let z = std.apply(r);
            let d = z
                .iter()
                .zip(&target)
                .map(|(a, b)| (a - b).powi(2))
                .sum::<f64>()
                .sqrt();
            (d, i)
        })
        .collect();
    dist.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    dist.truncate(k.max(1));
    let mut knees: Vec<u32> = dist
        .iter()
        .filter_map(|&(_, i)| knee(&model.predict_curve(&training[i], 0.0, cores)))
        .collect();
    if knees.is_empty() {
        return None;
    }
    let mut sorted = knees.clone();
    sorted.sort_unstable();
    let q = |f: f64| sorted[((sorted.len() - 1) as f64 * f).round() as usize];
    knees.truncate(k);
    Some(ProfileSuggestion {
        cores: sorted[(sorted.len() - 1) / 2],
        quartiles: (q(0.25), q(0.75)),
        knees,
        distance: (dist[0].0, dist[dist.len() - 1].0),
    })
}
