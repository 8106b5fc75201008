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

/// One NF's inputs for the decomposed ranker: its knobs and profile proxies.
fn nf_row(p: &crate::clara_data::Program) -> Vec<f64> {
    let mut v: Vec<f64> = (0..30)
        .map(|i| p.choices.get(i).copied().unwrap_or(0) as f64)
        .collect();
    v.extend((0..27).map(|i| p.configs.get(i).copied().unwrap_or(0) as f64));
    v.extend(features::ProgramProfile::of(p).values());
    v
}

fn nf_row_names() -> Vec<String> {
    let mut v = features::choice_names(30);
    v.extend(features::config_names(27));
    v.extend(
        features::ProgramProfile::NAMES
            .iter()
            .map(|s| s.to_string()),
    );
    v
}

fn share_row(me: &crate::clara_data::Program, partner: &crate::clara_data::Program) -> Vec<f64> {
    let mut v = nf_row(me);
    v.extend(nf_row(partner));
    v
}

/// A trained ranker.
#[derive(Debug, Serialize, Deserialize)]
pub struct Ranker {
    pub format: u32,
    pub kind: RankerKind,
    pub params: Params,
    pub seed: u64,
    pub features: Vec<String>,
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
        if kind == RankerKind::Decomposed {
            return Self::train_decomposed(params, groups, seed);
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
            model: Regressor::fit_objective(params, &x, &y, seed, objective)?,
            solo: None,
        })
    }

    fn train_decomposed(
        params: Params,
        groups: &[ColocationGroup],
        seed: u64,
    ) -> Result<Self, ModelError> {
        let (mut xs, mut ys) = (Vec::new(), Vec::new());
        let (mut x, mut y) = (Vec::new(), Vec::new());
        for g in groups {
            for (p, m) in &g.solo {
                xs.push(nf_row(p));
                ys.push(m.throughput.ln());
            }
            for pr in &g.pairs {
                for k in 0..2 {
                    let (me, other) = (pr.nfs[k], pr.nfs[1 - k]);
                    x.push(share_row(&g.solo[me].0, &g.solo[other].0));
                    y.push(pr.measured[k].throughput / g.solo[me].1.throughput);
                }
            }
        }
        let names = nf_row_names();
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
            model: Regressor::fit(params, &x, &y, seed)?,
            solo: Some(Regressor::fit(params, &xs, &ys, seed.wrapping_add(1))?),
        })
    }

    /// Decomposed: Clara's objective from the predicted parts, per pair of `g`.
    fn decomposed_scores(&self, g: &ColocationGroup) -> Vec<f64> {
        let Some(solo) = &self.solo else {
            return vec![0.0; g.pairs.len()];
        };
        let s: Vec<f64> = solo
            .predict(&g.solo.iter().map(|(p, _)| nf_row(p)).collect::<Vec<_>>())
            .into_iter()
            .map(f64::exp)
            .collect();
        let rows: Vec<Vec<f64>> = g
            .pairs
            .iter()
            .flat_map(|pr| {
                (0..2).map(move |k| share_row(&g.solo[pr.nfs[k]].0, &g.solo[pr.nfs[1 - k]].0))
            })
            .collect();
        let share = self.model.predict(&rows);
        g.pairs
            .iter()
            .enumerate()
            .map(|(i, pr)| {
                let (a, b) = (s[pr.nfs[0]], s[pr.nfs[1]]);
                (share[2 * i] * a + share[2 * i + 1] * b) / (a + b)
            })
            .collect()
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
    let mut best: Option<(Params, RankingReport)> = None;
    for params in grid(kind) {
        let r = Ranker::train(kind, params, train, seed)?;
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
        let r = evaluate(&Ranker::train(kind, params, &train, seed)?, &test);
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
