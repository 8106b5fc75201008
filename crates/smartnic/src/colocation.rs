//! Colocation ranking (Clara §4.5): rank the candidate pairs of a group of NFs
//! by how little sharing the NIC hurts them.
//!
//! **Group.** One `trainingset_feature_<i>` file: a few NFs each measured
//! alone and some pairs of them measured together. The candidates of a group
//! are its measured pairs; a group is never split between training and test.
//!
//! **Label.** Clara's best objective, total throughput: the pair's two
//! colocated throughputs summed, over the two NFs' solo throughputs summed.
//!
//! **Rankers.** `pairwise` is a pairwise learning-to-rank model in the
//! RankNet/LambdaMART family: a gradient-boosted logistic classifier over
//! pairs of candidates of one group, predicting whether the first is
//! friendlier, whose summed win probabilities rank the group. `pointwise`
//! regresses the group-centred label directly (a baseline), `random` is the
//! expected accuracy of a uniformly random order. `decomposed` predicts the
//! label's parts and recombines them: one GBDT predicts an NF's solo
//! throughput from its program, another the share of it the NF keeps next to
//! a partner (from both programs); a pair's score is Clara's objective
//! computed from the predictions, Σ share·solo / Σ solo. Measured solo
//! throughputs of the ranked groups are never used.
//!
//! **Inputs.** A ranker reads either the generator's knobs and the profile
//! proxies ([`RankerInputs::Knobs`], the default, for Clara programs) or the
//! profile proxies alone ([`RankerInputs::Profile`]: compute, memory,
//! arithmetic intensity, accelerator calls, elements), which are all nfc can
//! derive for a chain's NFs ([`features::ProgramProfile::from_measures`]);
//! [`Ranker::rank_profiles`] ranks the pairs of such NFs.
//!
//! **Noise.** [`noise_from_scale_out`] estimates one throughput
//! measurement's relative noise from the roughness of Clara's scale-out
//! curves (the data repeats no measurement), and [`noisy_oracle`] the top-1
//! a ranker that knew every pair's throughput up to that noise would reach.

use crate::clara_data::ColocationGroup;
use crate::features;
use crate::models::{ModelError, Params, Regressor};
use forust_ml::objective::ObjectiveType;
use serde::{Deserialize, Serialize};

pub const MODEL_FORMAT: u32 = 2;

/// A candidate pair of a group: its features and its measured friendliness.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub features: Vec<f64>,
    pub friendliness: f64,
}

pub fn candidates(g: &ColocationGroup) -> Vec<Candidate> {
    g.pairs
        .iter()
        .map(|p| {
            let (a, b) = (&g.solo[p.nfs[0]], &g.solo[p.nfs[1]]);
            Candidate {
                features: features::pair_row(&a.0, &b.0),
                friendliness: (p.measured[0].throughput + p.measured[1].throughput)
                    / (a.1.throughput + b.1.throughput),
            }
        })
        .collect()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RankerKind {
    Pairwise,
    Pointwise,
    Decomposed,
}

impl RankerKind {
    pub const ALL: [RankerKind; 3] = [
        RankerKind::Pairwise,
        RankerKind::Pointwise,
        RankerKind::Decomposed,
    ];
}

/// What a ranker reads of each NF.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RankerInputs {
    /// Clara's generator knobs and the profile proxies (Clara programs only).
    #[default]
    Knobs,
    /// The profile proxies nfc can derive for a chain NF
    /// ([`PROFILE_INPUTS`]); decomposed rankers only.
    Profile,
}

/// The [`features::ProgramProfile`] quantities a [`RankerInputs::Profile`]
/// ranker reads: Clara §4.5's compute instructions and arithmetic intensity
/// (so memory accesses), plus accelerator calls and elements. Not
/// `imem_structures`: the colocation data has no ISIMEM flags (always 0
/// there), while a chain NF's placement puts objects on chip.
pub const PROFILE_INPUTS: [&str; 5] = [
    "compute_work",
    "accelerator_calls",
    "memory_work",
    "elements",
    "arithmetic_intensity",
];

/// The [`PROFILE_INPUTS`] of a profile.
pub fn profile_row(p: &features::ProgramProfile) -> Vec<f64> {
    vec![
        p.compute_work,
        p.accelerator_calls,
        p.memory_work,
        p.elements,
        p.arithmetic_intensity(),
    ]
}

/// One NF's inputs for the decomposed ranker.
fn nf_row(p: &crate::clara_data::Program, inputs: RankerInputs) -> Vec<f64> {
    let profile = features::ProgramProfile::of(p);
    match inputs {
        RankerInputs::Profile => profile_row(&profile),
        RankerInputs::Knobs => {
            let mut v: Vec<f64> = (0..30)
                .map(|i| p.choices.get(i).copied().unwrap_or(0) as f64)
                .collect();
            v.extend((0..27).map(|i| p.configs.get(i).copied().unwrap_or(0) as f64));
            v.extend(profile.values());
            v
        }
    }
}

fn nf_row_names(inputs: RankerInputs) -> Vec<String> {
    match inputs {
        RankerInputs::Profile => PROFILE_INPUTS.iter().map(|s| s.to_string()).collect(),
        RankerInputs::Knobs => {
            let mut v = features::choice_names(30);
            v.extend(features::config_names(27));
            v.extend(
                features::ProgramProfile::NAMES
                    .iter()
                    .map(|s| s.to_string()),
            );
            v
        }
    }
}

fn share_row(me: &[f64], partner: &[f64]) -> Vec<f64> {
    let mut v = me.to_vec();
    v.extend_from_slice(partner);
    v
}

/// A pair of chain NFs ranked by [`Ranker::rank_profiles`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankedPair {
    /// Indices into the ranked profiles.
    pub nfs: [usize; 2],
    /// Clara's objective as predicted: the pair's colocated throughputs over
    /// their solo throughputs (1 = no interference).
    pub predicted_friendliness: f64,
}

/// A trained ranker.
#[derive(Debug, Serialize, Deserialize)]
pub struct Ranker {
    pub format: u32,
    pub kind: RankerKind,
    pub params: Params,
    pub seed: u64,
    pub features: Vec<String>,
    /// What the ranker reads of each NF (files from before this field: knobs).
    #[serde(default)]
    pub inputs: RankerInputs,
    /// Pairwise: logit of "first friendlier"; pointwise: centred label;
    /// decomposed: an NF's kept share of its solo throughput next to a partner.
    pub model: Regressor,
    /// Decomposed only: ln solo throughput of an NF from its program.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solo: Option<Regressor>,
}

fn pair_input(p: &[f64], q: &[f64]) -> Vec<f64> {
    let mut v: Vec<f64> = p.iter().zip(q).map(|(a, b)| a - b).collect();
    v.extend(p.iter().zip(q).map(|(a, b)| (a + b) / 2.0));
    v
}

impl Ranker {
    pub fn train(
        kind: RankerKind,
        params: Params,
        groups: &[ColocationGroup],
        seed: u64,
    ) -> Result<Self, ModelError> {
        Self::train_with(kind, RankerInputs::Knobs, params, groups, seed)
    }

    /// Train a ranker reading `inputs` of each NF (profile inputs: decomposed only).
    pub fn train_with(
        kind: RankerKind,
        inputs: RankerInputs,
        params: Params,
        groups: &[ColocationGroup],
        seed: u64,
    ) -> Result<Self, ModelError> {
        if kind == RankerKind::Decomposed {
            return Self::train_decomposed(inputs, params, groups, seed);
        }
        if inputs != RankerInputs::Knobs {
            return Err(ModelError::Unsupported(format!(
                "a {kind:?} ranker reads pair features of Clara programs; only the decomposed ranker takes profile inputs"
            )));
        }
        let (mut x, mut y) = (Vec::new(), Vec::new());
        for g in groups {
            let c = candidates(g);
            match kind {
                RankerKind::Decomposed => unreachable!("handled above"),
                RankerKind::Pairwise => {
                    for (i, p) in c.iter().enumerate() {
                        for (j, q) in c.iter().enumerate() {
                            if i != j && p.friendliness != q.friendliness {
                                x.push(pair_input(&p.features, &q.features));
                                y.push(f64::from(u8::from(p.friendliness > q.friendliness)));
                            }
                        }
                    }
                }
                RankerKind::Pointwise => {
                    let mean = c.iter().map(|k| k.friendliness).sum::<f64>() / c.len() as f64;
                    for k in &c {
                        x.push(k.features.clone());
                        y.push(k.friendliness - mean);
                    }
                }
            }
        }
        let objective = match kind {
            RankerKind::Pairwise => ObjectiveType::LogLoss,
            _ => ObjectiveType::SquaredLoss,
        };
        let names = features::pair_feature_names();
        let features = match kind {
            RankerKind::Pairwise => names
                .iter()
                .map(|n| format!("{n}_diff"))
                .chain(names.iter().map(|n| format!("{n}_mean")))
                .collect(),
            _ => names,
        };
        Ok(Ranker {
            format: MODEL_FORMAT,
            kind,
            params,
            seed,
            features,
            inputs,
            model: Regressor::fit_objective(params, &x, &y, seed, objective)?,
            solo: None,
        })
    }

    fn train_decomposed(
        inputs: RankerInputs,
        params: Params,
        groups: &[ColocationGroup],
        seed: u64,
    ) -> Result<Self, ModelError> {
        let (mut xs, mut ys) = (Vec::new(), Vec::new());
        let (mut x, mut y) = (Vec::new(), Vec::new());
        for g in groups {
            let rows: Vec<Vec<f64>> = g.solo.iter().map(|(p, _)| nf_row(p, inputs)).collect();
            for (r, (_, m)) in rows.iter().zip(&g.solo) {
                xs.push(r.clone());
                ys.push(m.throughput.ln());
            }
            for pr in &g.pairs {
                for k in 0..2 {
                    let (me, other) = (pr.nfs[k], pr.nfs[1 - k]);
                    x.push(share_row(&rows[me], &rows[other]));
                    y.push(pr.measured[k].throughput / g.solo[me].1.throughput);
                }
            }
        }
        let names = nf_row_names(inputs);
        let features = names
            .iter()
            .cloned()
            .chain(names.iter().map(|n| format!("partner_{n}")))
            .collect();
        Ok(Ranker {
            format: MODEL_FORMAT,
            kind: RankerKind::Decomposed,
            params,
            seed,
            features,
            inputs,
            model: Regressor::fit(params, &x, &y, seed)?,
            solo: Some(Regressor::fit(params, &xs, &ys, seed.wrapping_add(1))?),
        })
    }

    /// Decomposed: Clara's objective from the predicted parts, per pair of `g`.
    fn decomposed_scores(&self, g: &ColocationGroup) -> Vec<f64> {
        let rows: Vec<Vec<f64>> = g.solo.iter().map(|(p, _)| nf_row(p, self.inputs)).collect();
        let pairs: Vec<[usize; 2]> = g.pairs.iter().map(|pr| pr.nfs).collect();
        self.decomposed_rows(&rows, &pairs)
    }

    /// Decomposed: Clara's objective from the predicted parts, per pair of
    /// NFs given by their input rows.
    fn decomposed_rows(&self, nfs: &[Vec<f64>], pairs: &[[usize; 2]]) -> Vec<f64> {
        let Some(solo) = &self.solo else {
            return vec![0.0; pairs.len()];
        };
        if nfs.is_empty() || pairs.is_empty() {
            return vec![0.0; pairs.len()];
        }
        let s: Vec<f64> = solo.predict(nfs).into_iter().map(f64::exp).collect();
        let rows: Vec<Vec<f64>> = pairs
            .iter()
            .flat_map(|pr| (0..2).map(move |k| share_row(&nfs[pr[k]], &nfs[pr[1 - k]])))
            .collect();
        let share = self.model.predict(&rows);
        pairs
            .iter()
            .enumerate()
            .map(|(i, pr)| {
                let (a, b) = (s[pr[0]], s[pr[1]]);
                (share[2 * i] * a + share[2 * i + 1] * b) / (a + b)
            })
            .collect()
    }

    /// Rank every pair of NFs known only by their profiles (a chain's NFs),
    /// friendliest first (ties → the earlier pair). Needs a decomposed ranker
    /// with [`RankerInputs::Profile`]; `Err` with the reason otherwise.
    pub fn rank_profiles(
        &self,
        nfs: &[features::ProgramProfile],
    ) -> Result<Vec<RankedPair>, String> {
        if self.kind != RankerKind::Decomposed || self.inputs != RankerInputs::Profile {
            return Err(format!(
                "a {:?} ranker reading {:?} inputs cannot rank NFs known only by their profiles (needs a decomposed ranker on profile inputs)",
                self.kind, self.inputs
            ));
        }
        let rows: Vec<Vec<f64>> = nfs.iter().map(profile_row).collect();
        let mut pairs = Vec::new();
        for i in 0..nfs.len() {
            for j in i + 1..nfs.len() {
                pairs.push([i, j]);
            }
        }
        let scores = self.decomposed_rows(&rows, &pairs);
        Ok(order(&scores)
            .into_iter()
            .map(|k| RankedPair {
                nfs: pairs[k],
                predicted_friendliness: scores[k],
            })
            .collect())
    }

    /// A score per candidate pair of `g` (in `g.pairs` order), higher = friendlier.
    pub fn group_scores(&self, g: &ColocationGroup) -> Vec<f64> {
        match self.kind {
            RankerKind::Decomposed => self.decomposed_scores(g),
            _ => self.scores(&candidates(g)),
        }
    }

    /// A score per candidate, higher = friendlier (pairwise and pointwise
    /// rankers; the decomposed one needs the group, [`Ranker::group_scores`]).
    pub fn scores(&self, c: &[Candidate]) -> Vec<f64> {
        match self.kind {
            RankerKind::Decomposed => vec![0.0; c.len()],
            RankerKind::Pointwise => self
                .model
                .predict(&c.iter().map(|k| k.features.clone()).collect::<Vec<_>>()),
            RankerKind::Pairwise => {
                let mut rows = Vec::new();
                for p in c {
                    for q in c {
                        rows.push(pair_input(&p.features, &q.features));
                    }
                }
                let logits = self.model.predict(&rows);
                (0..c.len())
                    .map(|i| {
                        (0..c.len())
                            .filter(|&j| j != i)
                            .map(|j| 1.0 / (1.0 + (-logits[i * c.len() + j]).exp()))
                            .sum()
                    })
                    .collect()
            }
        }
    }

    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string(self)
    }

    pub fn from_json(s: &str) -> Result<Self, String> {
        let m: Ranker =
            serde_json::from_str(s).map_err(|e| format!("not a colocation ranker: {e}"))?;
        if m.format != MODEL_FORMAT {
            return Err(format!(
                "model format {} is not the supported {MODEL_FORMAT}",
                m.format
            ));
        }
        Ok(m)
    }
}

/// Candidate indices from the highest score down (ties → earlier candidate).
pub fn order(scores: &[f64]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..scores.len()).collect();
    idx.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
    idx
}

/// Top-1: the ranker's first choice is the measured friendliest pair.
/// Top-3: the measured friendliest pair is among the ranker's first three.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RankingReport {
    pub groups: usize,
    pub top1: f64,
    pub top3: f64,
}

pub fn evaluate(ranker: &Ranker, groups: &[ColocationGroup]) -> RankingReport {
    evaluate_with(groups, |g| order(&ranker.group_scores(g)))
}

/// The expected accuracy of a uniformly random order.
pub fn random_baseline(groups: &[ColocationGroup]) -> RankingReport {
    let n = groups.len().max(1) as f64;
    let (mut t1, mut t3) = (0.0, 0.0);
    for g in groups {
        let k = g.pairs.len() as f64;
        t1 += 1.0 / k;
        t3 += k.min(3.0) / k;
    }
    RankingReport {
        groups: groups.len(),
        top1: t1 / n,
        top3: t3 / n,
    }
}

fn evaluate_with(
    groups: &[ColocationGroup],
    rank: impl Fn(&ColocationGroup) -> Vec<usize>,
) -> RankingReport {
    let (mut t1, mut t3) = (0usize, 0usize);
    for g in groups {
        let c = candidates(g);
        let truth = order(&c.iter().map(|k| k.friendliness).collect::<Vec<_>>())[0];
        let predicted = rank(g);
        t1 += usize::from(predicted.first() == Some(&truth));
        t3 += usize::from(predicted.iter().take(3).any(|&i| i == truth));
    }
    let n = groups.len().max(1) as f64;
    RankingReport {
        groups: groups.len(),
        top1: t1 as f64 / n,
        top3: t3 as f64 / n,
    }
}

/// Deterministic split of groups: 70% train, 15% validation, 15% test.
pub fn split_groups(
    groups: &[ColocationGroup],
    seed: u64,
) -> (
    Vec<ColocationGroup>,
    Vec<ColocationGroup>,
    Vec<ColocationGroup>,
) {
    use rand::{seq::SliceRandom, SeedableRng};
    let mut g: Vec<ColocationGroup> = groups.to_vec();
    g.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(seed));
    let n = g.len();
    let test = g.split_off(n * 85 / 100);
    let validation = g.split_off(n * 70 / 100);
    (g, validation, test)
}

/// Hyper-parameters tried for a ranker (GBDT).
pub fn grid(kind: RankerKind) -> Vec<Params> {
    let mut v = Vec::new();
    let (iters, depths): (&[usize], &[usize]) = match kind {
        RankerKind::Decomposed => (&[200, 500], &[4, 6]),
        _ => (&[50, 200], &[2, 4, 6]),
    };
    for &iterations in iters {
        for &max_depth in depths {
            for learning_rate in [0.05, 0.2] {
                v.push(Params::Gbdt {
                    iterations,
                    max_depth,
                    learning_rate,
                });
            }
        }
    }
    v
}

/// Choose parameters by validation top-1 (then top-3).
pub fn select(
    kind: RankerKind,
    train: &[ColocationGroup],
    validation: &[ColocationGroup],
    seed: u64,
) -> Result<(Params, RankingReport), ModelError> {
    select_with(kind, RankerInputs::Knobs, train, validation, seed)
}

/// [`select`] for a ranker reading `inputs`.
pub fn select_with(
    kind: RankerKind,
    inputs: RankerInputs,
    train: &[ColocationGroup],
    validation: &[ColocationGroup],
    seed: u64,
) -> Result<(Params, RankingReport), ModelError> {
    let mut best: Option<(Params, RankingReport)> = None;
    for params in grid(kind) {
        let r = Ranker::train_with(kind, inputs, params, train, seed)?;
        let rep = evaluate(&r, validation);
        if best
            .as_ref()
            .is_none_or(|(_, b)| (rep.top1, rep.top3) > (b.top1, b.top3))
        {
            best = Some((params, rep));
        }
    }
    best.ok_or(ModelError::BadShape)
}

/// The default ranker's kind: chosen over pairwise and pointwise by 5-fold
/// cross-validation on the bench's training and validation groups (never its
/// test groups; docs/smartnic.md).
pub const DEFAULT_KIND: RankerKind = RankerKind::Decomposed;

/// The default ranker: [`DEFAULT_KIND`], hyper-parameters chosen on a
/// validation fold of `groups`, then trained on all of them.
pub fn train_default(
    groups: &[ColocationGroup],
    seed: u64,
) -> Result<(Ranker, Params), ModelError> {
    let (mut train, validation, test) = split_groups(groups, seed);
    train.extend(test);
    let (params, _) = select(DEFAULT_KIND, &train, &validation, seed)?;
    Ok((Ranker::train(DEFAULT_KIND, params, groups, seed)?, params))
}

/// Mean top-1/top-3 of `kind` with `params` over `folds` folds of `groups`
/// (group `i` tests in fold `i mod folds`; groups are never split).
pub fn cross_validate(
    kind: RankerKind,
    params: Params,
    groups: &[ColocationGroup],
    folds: usize,
    seed: u64,
) -> Result<RankingReport, ModelError> {
    cross_validate_with(kind, RankerInputs::Knobs, params, groups, folds, seed)
}

/// [`cross_validate`] for a ranker reading `inputs`.
pub fn cross_validate_with(
    kind: RankerKind,
    inputs: RankerInputs,
    params: Params,
    groups: &[ColocationGroup],
    folds: usize,
    seed: u64,
) -> Result<RankingReport, ModelError> {
    let folds = folds.max(2);
    let (mut t1, mut t3) = (0.0, 0.0);
    for f in 0..folds {
        let (mut train, mut test) = (Vec::new(), Vec::new());
        for (i, g) in groups.iter().enumerate() {
            if i % folds == f {
                test.push(g.clone());
            } else {
                train.push(g.clone());
            }
        }
        let r = evaluate(
            &Ranker::train_with(kind, inputs, params, &train, seed)?,
            &test,
        );
        t1 += r.top1 * test.len() as f64;
        t3 += r.top3 * test.len() as f64;
    }
    let n = groups.len().max(1) as f64;
    Ok(RankingReport {
        groups: groups.len(),
        top1: t1 / n,
        top3: t3 / n,
    })
}

/// Per group, how much friendlier (relative) the measured best pair is than
/// the second best: near-ties are where one measurement's noise decides top-1.
pub fn top_margins(groups: &[ColocationGroup]) -> Vec<f64> {
    groups
        .iter()
        .filter_map(|g| {
            let mut f: Vec<f64> = candidates(g).iter().map(|c| c.friendliness).collect();
            f.sort_by(|a, b| b.total_cmp(a));
            (f.len() >= 2).then(|| (f[0] - f[1]) / f[0])
        })
        .collect()
}

/// One throughput measurement's relative noise on Clara's testbed, estimated
/// from data that repeats no measurement: each scale-out NF is measured at
/// consecutive core counts, and the third difference of four consecutive
/// points, `t₁ − 3t₂ + 3t₃ − t₄`, cancels any quadratic trend while
/// independent noise of relative size σ gives it variance 20σ² (relative to
/// the window's mean). σ = 1.4826 · MAD / √20 (robust), and the RMS version.
/// What is left of the curves' own shape (cubic and higher) adds to both, so
/// they are upper bounds of the noise (docs/smartnic.md).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct NoiseEstimate {
    /// Robust (median absolute deviation) estimate of σ.
    pub sigma: f64,
    /// Root-mean-square estimate of σ (outliers included).
    pub sigma_rms: f64,
    /// Windows of four consecutive core counts used.
    pub windows: usize,
}

/// [`NoiseEstimate`] from scale-out curves; `None` without a window of four
/// consecutive core counts.
pub fn noise_from_scale_out(nfs: &[crate::clara_data::ScaleOutNf]) -> Option<NoiseEstimate> {
    let mut d = Vec::new();
    for nf in nfs {
        let pts: Vec<(u32, f64)> = nf.curve.iter().map(|(&c, m)| (c, m.throughput)).collect();
        for w in pts.windows(4) {
            if w[3].0 != w[0].0 + 3 || w[1].0 != w[0].0 + 1 || w[2].0 != w[0].0 + 2 {
                continue;
            }
            let mean = w.iter().map(|p| p.1).sum::<f64>() / 4.0;
            if mean > 0.0 {
                d.push((w[0].1 - 3.0 * w[1].1 + 3.0 * w[2].1 - w[3].1) / mean);
            }
        }
    }
    if d.is_empty() {
        return None;
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        let n = v.len();
        if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        }
    };
    let m = median(&mut d.clone());
    let mad = median(&mut d.iter().map(|x| (x - m).abs()).collect());
    let rms = (d.iter().map(|x| x * x).sum::<f64>() / d.len() as f64).sqrt();
    Some(NoiseEstimate {
        sigma: 1.4826 * mad / 20f64.sqrt(),
        sigma_rms: rms / 20f64.sqrt(),
        windows: d.len(),
    })
}

/// What measurement noise alone does to top-1 on a set of groups.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NoisyOracle {
    /// Relative noise of one throughput measurement.
    pub sigma: f64,
    pub draws: usize,
    /// Top-1/top-3 of an oracle that ranks by the measured labels remeasured
    /// with noise σ (every solo and colocated throughput perturbed by an
    /// independent N(0, σ) relative error), scored against the measured labels.
    pub oracle: RankingReport,
    /// Share of groups whose best pair beats the second by less than the
    /// standard deviation that noise gives that difference.
    pub near_tie_share: f64,
    /// Those groups' ids.
    pub near_tie_groups: Vec<u64>,
}

/// Standard normal draw (Box–Muller), deterministic for the generator.
fn normal(rng: &mut impl rand::Rng) -> f64 {
    let u1: f64 = rng.gen_range(f64::EPSILON..1.0);
    let u2: f64 = rng.gen_range(0.0..1.0);
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// The top-1 (and top-3) an oracle that knew every pair's throughputs up to
/// measurement noise σ would reach against the released labels, by `draws`
/// seeded Monte Carlo remeasurements of each group. The released labels stand
/// in for the truth; they carry noise themselves, which spreads them more than
/// the truth, so near-ties are if anything rarer here and the oracle's figure
/// is optimistic.
pub fn noisy_oracle(
    groups: &[ColocationGroup],
    sigma: f64,
    draws: usize,
    seed: u64,
) -> NoisyOracle {
    use rand::SeedableRng;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let draws = draws.max(1);
    let (mut t1, mut t3) = (0usize, 0usize);
    let mut near = Vec::new();
    for g in groups {
        let truth: Vec<f64> = candidates(g).iter().map(|c| c.friendliness).collect();
        let ord = order(&truth);
        let (best, second) = (ord[0], ord.get(1).copied());
        let mut diffs = Vec::with_capacity(draws);
        for _ in 0..draws {
            let solo: Vec<f64> = g
                .solo
                .iter()
                .map(|(_, m)| m.throughput * (1.0 + sigma * normal(&mut rng)))
                .collect();
            let f: Vec<f64> = g
                .pairs
                .iter()
                .map(|p| {
                    let c: f64 = p
                        .measured
                        .iter()
                        .map(|m| m.throughput * (1.0 + sigma * normal(&mut rng)))
                        .sum();
                    c / (solo[p.nfs[0]] + solo[p.nfs[1]])
                })
                .collect();
            let o = order(&f);
            t1 += usize::from(o[0] == best);
            t3 += usize::from(o.iter().take(3).any(|&i| i == best));
            if let Some(s) = second {
                diffs.push(f[best] - f[s]);
            }
        }
        if let Some(s) = second {
            let n = diffs.len() as f64;
            let mean = diffs.iter().sum::<f64>() / n;
            let sd = (diffs.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / n).sqrt();
            if truth[best] - truth[s] < sd {
                near.push(g.id);
            }
        }
    }
    let n = (groups.len().max(1) * draws) as f64;
    NoisyOracle {
        sigma,
        draws,
        oracle: RankingReport {
            groups: groups.len(),
            top1: t1 as f64 / n,
            top3: t3 as f64 / n,
        },
        near_tie_share: near.len() as f64 / groups.len().max(1) as f64,
        near_tie_groups: near,
    }
}
