//! Why a model predicts what it does, and what the feature space looks
//! like: permutation importance, Shapley values per prediction and overall,
//! and a two-component PCA.
//!
//! Shapley values are interventional with the training mean as the
//! baseline: a feature "absent" from a coalition takes its training mean
//! (the scaler's mean, in counter units: [`TrainedModel::baseline`]). Over at most [`EXACT_SHAPLEY_MAX`] features they are
//! exact (every coalition); over more they are estimated by sampling
//! feature permutations (Štrumbelj and Kononenko), seeded. Either way each
//! row's values sum to its prediction minus the baseline prediction.

use crate::features::Frame;
use crate::metrics::Metrics;
use crate::model::{project, TrainedModel};
use crate::PredictError;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

/// Exact Shapley values up to this many features (2^k coalitions).
pub const EXACT_SHAPLEY_MAX: usize = 12;
/// Permutations sampled per row above it.
pub const SHAPLEY_PERMUTATIONS: usize = 64;

/// One feature's permutation importance.
#[derive(Debug, Clone, Serialize)]
pub struct Importance {
    pub feature: String,
    /// Accuracy lost when the column is shuffled (mean over repeats).
    pub accuracy_drop: f64,
}

/// Shuffle each feature's column `repeats` times and measure the accuracy
/// lost, on `frame` (measured rows).
pub fn permutation_importance(
    model: &TrainedModel,
    frame: &Frame,
    repeats: usize,
    seed: u64,
) -> Result<Vec<Importance>, PredictError> {
    let f = project(&frame.measured(), &model.meta.features)?;
    let base = Metrics::compute(&model.predict_raw(&f.x), &f.y).accuracy;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = vec![];
    for (c, name) in f.features.iter().enumerate() {
        let mut drop = 0.0;
        for _ in 0..repeats.max(1) {
            let mut col = f.column(c);
            col.shuffle(&mut rng);
            let x: Vec<Vec<f64>> =
                f.x.iter()
                    .zip(&col)
                    .map(|(r, v)| {
                        let mut r = r.clone();
                        r[c] = *v;
                        r
                    })
                    .collect();
            drop += base - Metrics::compute(&model.predict_raw(&x), &f.y).accuracy;
        }
        out.push(Importance {
            feature: name.clone(),
            accuracy_drop: drop / repeats.max(1) as f64,
        });
    }
    out.sort_by(|a, b| b.accuracy_drop.total_cmp(&a.accuracy_drop));
    Ok(out)
}

/// Shapley values of some rows.
#[derive(Debug, Clone, Serialize)]
pub struct Shapley {
    pub features: Vec<String>,
    /// The prediction with every feature at its training mean.
    pub baseline: f64,
    /// `true` when exact, `false` when sampled.
    pub exact: bool,
    /// Per row: (line in its file, prediction, one value per feature).
    pub rows: Vec<(usize, f64, Vec<f64>)>,
    /// Mean |value| per feature over the rows (overall importance).
    pub mean_abs: Vec<f64>,
}

/// Shapley values of the rows of `frame` (at most `max_rows`, evenly
/// spaced).
pub fn shapley(
    model: &TrainedModel,
    frame: &Frame,
    max_rows: usize,
    seed: u64,
) -> Result<Shapley, PredictError> {
    let f = project(frame, &model.meta.features)?;
    let k = f.features.len();
    let mean = model.baseline();
    let baseline = model
        .predict_raw(std::slice::from_ref(&mean))
        .first()
        .copied()
        .unwrap_or(f64::NAN);
    let step = f.len().div_ceil(max_rows.max(1)).max(1);
    let picked: Vec<usize> = (0..f.len()).step_by(step).collect();
    let exact = k <= EXACT_SHAPLEY_MAX;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut rows = vec![];
    for &i in &picked {
        let x = &f.x[i];
        let phi = if exact {
            exact_row(model, x, &mean)
        } else {
            sampled_row(model, x, &mean, &mut rng)
        };
        let pred = model
            .predict_raw(std::slice::from_ref(x))
            .first()
            .copied()
            .unwrap_or(f64::NAN);
        rows.push((f.line[i], pred, phi));
    }
    let mut mean_abs = vec![0.0; k];
    for (_, _, phi) in &rows {
        for (m, v) in mean_abs.iter_mut().zip(phi) {
            *m += v.abs() / rows.len() as f64;
        }
    }
    Ok(Shapley {
        features: f.features,
        baseline,
        exact,
        rows,
        mean_abs,
    })
}

/// Every coalition: value(S) for all 2^k masks in one batch, then the
/// weighted marginal contributions.
fn exact_row(model: &TrainedModel, x: &[f64], mean: &[f64]) -> Vec<f64> {
    let k = x.len();
    let masks = 1usize << k;
    let inputs: Vec<Vec<f64>> = (0..masks)
        .map(|m| {
            (0..k)
                .map(|j| if m >> j & 1 == 1 { x[j] } else { mean[j] })
                .collect()
        })
        .collect();
    let v = model.predict_raw(&inputs);
    let fact: Vec<f64> = (0..=k)
        .scan(1.0, |acc, i| {
            if i > 0 {
                *acc *= i as f64;
            }
            Some(*acc)
        })
        .collect();
    let mut phi = vec![0.0; k];
    for m in 0..masks {
        let s = m.count_ones() as usize;
        for (j, p) in phi.iter_mut().enumerate() {
            if m >> j & 1 == 0 {
                let w = fact[s] * fact[k - s - 1] / fact[k];
                *p += w * (v[m | 1 << j] - v[m]);
            }
        }
    }
    phi
}

/// Permutation sampling: walk each sampled order from the baseline to `x`,
/// crediting each feature with the change it causes.
fn sampled_row(model: &TrainedModel, x: &[f64], mean: &[f64], rng: &mut ChaCha8Rng) -> Vec<f64> {
    let k = x.len();
    let mut phi = vec![0.0; k];
    let mut order: Vec<usize> = (0..k).collect();
    for _ in 0..SHAPLEY_PERMUTATIONS {
        order.shuffle(rng);
        let mut cur = mean.to_vec();
        let mut path = vec![cur.clone()];
        for &j in &order {
            cur[j] = x[j];
            path.push(cur.clone());
        }
        let v = model.predict_raw(&path);
        for (step, &j) in order.iter().enumerate() {
            phi[j] += (v[step + 1] - v[step]) / SHAPLEY_PERMUTATIONS as f64;
        }
    }
    phi
}

/// A two-component PCA of standardised features.
#[derive(Debug, Clone, Serialize)]
pub struct Pca {
    pub features: Vec<String>,
    /// Share of the variance each component explains.
    pub explained: [f64; 2],
    /// Per row: the two coordinates.
    pub points: Vec<[f64; 2]>,
}

/// PCA by power iteration with deflation on the correlation matrix of the
/// non-constant columns of `frame`.
pub fn pca(frame: &Frame) -> Pca {
    let cols: Vec<usize> = (0..frame.features.len())
        .filter(|&c| {
            let col = frame.column(c);
            col.iter().any(|v| *v != col[0])
        })
        .collect();
    let f = frame.select(&cols);
    let z = crate::features::Scaler::fit(&f.x).transform(&f.x);
    let k = cols.len();
    let n = z.len().max(1) as f64;
    let mut cov = vec![vec![0.0; k]; k];
    for r in &z {
        for i in 0..k {
            for j in 0..k {
                cov[i][j] += r[i] * r[j] / n;
            }
        }
    }
    let total: f64 = (0..k).map(|i| cov[i][i]).sum::<f64>().max(1e-300);
    let mut comps = vec![];
    let mut explained = [0.0; 2];
    for (slot, e) in explained.iter_mut().enumerate() {
        let mut v: Vec<f64> = (0..k).map(|i| 1.0 + (i + slot) as f64 * 1e-3).collect();
        let mut lambda = 0.0;
        for _ in 0..500 {
            let mut w: Vec<f64> = (0..k)
                .map(|i| (0..k).map(|j| cov[i][j] * v[j]).sum())
                .collect();
            let norm = w.iter().map(|a| a * a).sum::<f64>().sqrt();
            if norm < 1e-300 {
                break;
            }
            w.iter_mut().for_each(|a| *a /= norm);
            lambda = norm;
            v = w;
        }
        for i in 0..k {
            for j in 0..k {
                cov[i][j] -= lambda * v[i] * v[j];
            }
        }
        *e = lambda / total;
        comps.push(v);
    }
    let points = z
        .iter()
        .map(|r| {
            let p = |c: &Vec<f64>| r.iter().zip(c).map(|(a, b)| a * b).sum::<f64>();
            [p(&comps[0]), p(&comps[1])]
        })
        .collect();
    Pca {
        features: f.features,
        explained,
        points,
    }
}
