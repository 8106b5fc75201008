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
//! expected accuracy of a uniformly random order.

use crate::clara_data::ColocationGroup;
use crate::features;
use crate::models::{ModelError, Params, Regressor};
use forust_ml::objective::ObjectiveType;
use serde::{Deserialize, Serialize};

pub const MODEL_FORMAT: u32 = 1;

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
}

/// A trained ranker.
#[derive(Debug, Serialize, Deserialize)]
pub struct Ranker {
    pub format: u32,
    pub kind: RankerKind,
    pub params: Params,
    pub seed: u64,
    pub features: Vec<String>,
    pub model: Regressor,
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
        let (mut x, mut y) = (Vec::new(), Vec::new());
        for g in groups {
            let c = candidates(g);
            match kind {
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
            RankerKind::Pointwise => ObjectiveType::SquaredLoss,
        };
        let names = features::pair_feature_names();
        let features = match kind {
            RankerKind::Pairwise => names
                .iter()
                .map(|n| format!("{n}_diff"))
                .chain(names.iter().map(|n| format!("{n}_mean")))
                .collect(),
            RankerKind::Pointwise => names,
        };
        Ok(Ranker {
            format: MODEL_FORMAT,
            kind,
            params,
            seed,
            features,
            model: Regressor::fit_objective(params, &x, &y, seed, objective)?,
        })
    }

    /// A score per candidate, higher = friendlier.
    pub fn scores(&self, c: &[Candidate]) -> Vec<f64> {
        match self.kind {
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
    evaluate_with(groups, |c| order(&ranker.scores(c)))
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
    rank: impl Fn(&[Candidate]) -> Vec<usize>,
) -> RankingReport {
    let (mut t1, mut t3) = (0usize, 0usize);
    for g in groups {
        let c = candidates(g);
        let truth = order(&c.iter().map(|k| k.friendliness).collect::<Vec<_>>())[0];
        let predicted = rank(&c);
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

/// Hyper-parameters tried for the rankers (GBDT).
pub fn grid() -> Vec<Params> {
    let mut v = Vec::new();
    for iterations in [50, 200] {
        for max_depth in [2, 4, 6] {
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
    for params in grid() {
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

/// The default ranker: pairwise GBDT, hyper-parameters chosen on a validation
/// fold of `groups`, then trained on all of them.
pub fn train_default(
    groups: &[ColocationGroup],
    seed: u64,
) -> Result<(Ranker, Params), ModelError> {
    let (mut train, validation, test) = split_groups(groups, seed);
    train.extend(test);
    let (params, _) = select(RankerKind::Pairwise, &train, &validation, seed)?;
    Ok((
        Ranker::train(RankerKind::Pairwise, params, groups, seed)?,
        params,
    ))
}
