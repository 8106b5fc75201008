//! The regressors compared on the same splits: gradient-boosted trees
//! (forust-ml, Clara's choice), and the baselines Clara compares against —
//! k nearest neighbours, linear (ridge) regression and a small MLP. The
//! baselines are written here (a few dozen lines each) rather than pulled
//! from a second ML crate; all are deterministic for a given seed and
//! serialisable, so a saved model predicts exactly what the trained one did.

use forust_ml::{objective::ObjectiveType, GradientBooster, Matrix};
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

/// Hyper-parameters of a model kind; the search space per kind is [`ModelKind::grid`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Params {
    Gbdt {
        iterations: usize,
        max_depth: usize,
        learning_rate: f32,
    },
    Knn {
        k: usize,
    },
    Linear {
        l2: f64,
    },
    Mlp {
        hidden: usize,
        epochs: usize,
        learning_rate: f64,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelKind {
    Gbdt,
    Knn,
    Linear,
    Mlp,
}

impl ModelKind {
    pub const ALL: [ModelKind; 4] = [
        ModelKind::Gbdt,
        ModelKind::Knn,
        ModelKind::Linear,
        ModelKind::Mlp,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ModelKind::Gbdt => "gbdt",
            ModelKind::Knn => "knn",
            ModelKind::Linear => "linear",
            ModelKind::Mlp => "mlp",
        }
    }

    /// The hyper-parameters tried on the validation fold.
    pub fn grid(self) -> Vec<Params> {
        match self {
            ModelKind::Gbdt => {
                let mut v = Vec::new();
                for iterations in [100, 300] {
                    for max_depth in [5, 7] {
                        for learning_rate in [0.05, 0.15] {
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
            ModelKind::Knn => [3, 7, 15, 31]
                .into_iter()
                .map(|k| Params::Knn { k })
                .collect(),
            ModelKind::Linear => [0.01, 1.0, 100.0]
                .into_iter()
                .map(|l2| Params::Linear { l2 })
                .collect(),
            ModelKind::Mlp => [(16, 40), (32, 80)]
                .into_iter()
                .map(|(hidden, epochs)| Params::Mlp {
                    hidden,
                    epochs,
                    learning_rate: 0.003,
                })
                .collect(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("training data is empty or ragged")]
    BadShape,
    #[error("gradient boosting failed: {0}")]
    Gbdt(String),
    #[error("{0}")]
    Unsupported(String),
}

/// Per-feature standardisation, fitted on training rows.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Standardizer {
    mean: Vec<f64>,
    scale: Vec<f64>,
}

impl Standardizer {
    pub fn fit(x: &[Vec<f64>]) -> Self {
        let d = x[0].len();
        let n = x.len() as f64;
        let mut mean = vec![0.0; d];
        for r in x {
            for (m, v) in mean.iter_mut().zip(r) {
                *m += v / n;
            }
        }
        let mut var = vec![0.0; d];
        for r in x {
            for j in 0..d {
                var[j] += (r[j] - mean[j]).powi(2) / n;
            }
        }
        let scale = var
            .iter()
            .map(|v| if *v > 1e-12 { v.sqrt() } else { 1.0 })
            .collect();
        Standardizer { mean, scale }
    }

    pub fn apply(&self, r: &[f64]) -> Vec<f64> {
        r.iter()
            .zip(&self.mean)
            .zip(&self.scale)
            .map(|((v, m), s)| (v - m) / s)
            .collect()
    }
}

/// A trained regressor.
#[derive(Serialize, Deserialize)]
pub enum Regressor {
    Gbdt(Box<GradientBooster>),
    Knn {
        std: Standardizer,
        k: usize,
        x: Vec<Vec<f64>>,
        y: Vec<f64>,
    },
    Linear {
        std: Standardizer,
        weights: Vec<f64>,
        bias: f64,
    },
    Mlp(Mlp),
}

impl std::fmt::Debug for Regressor {
    // forust's booster has no Debug; the variant is what a reader needs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = match self {
            Regressor::Gbdt(b) => return write!(f, "Gbdt({} trees)", b.trees.len()),
            Regressor::Knn { .. } => "Knn",
            Regressor::Linear { .. } => "Linear",
            Regressor::Mlp(_) => "Mlp",
        };
        f.write_str(name)
    }
}

fn check_shape(x: &[Vec<f64>], y: &[f64]) -> Result<usize, ModelError> {
    let d = x.first().map(|r| r.len()).ok_or(ModelError::BadShape)?;
    if d == 0 || x.len() != y.len() || x.iter().any(|r| r.len() != d) {
        return Err(ModelError::BadShape);
    }
    Ok(d)
}

/// Column-major copy for forust.
fn column_major(x: &[Vec<f64>]) -> Vec<f64> {
    let d = x[0].len();
    let mut out = Vec::with_capacity(x.len() * d);
    for j in 0..d {
        out.extend(x.iter().map(|r| r[j]));
    }
    out
}

impl Regressor {
    /// Fit a regressor (or, with `ObjectiveType::LogLoss`, a GBDT classifier whose output is a logit).
    pub fn fit(params: Params, x: &[Vec<f64>], y: &[f64], seed: u64) -> Result<Self, ModelError> {
        Self::fit_objective(params, x, y, seed, ObjectiveType::SquaredLoss)
    }

    pub fn fit_objective(
        params: Params,
        x: &[Vec<f64>],
        y: &[f64],
        seed: u64,
        objective: ObjectiveType,
    ) -> Result<Self, ModelError> {
        Self::fit_weighted(params, x, y, None, seed, objective)
    }

    /// [`Regressor::fit_objective`] with a weight per row (GBDT only; the
    /// other kinds ignore weights, `None` = every row weighs 1).
    pub fn fit_weighted(
        params: Params,
        x: &[Vec<f64>],
        y: &[f64],
        weights: Option<&[f64]>,
        seed: u64,
        objective: ObjectiveType,
    ) -> Result<Self, ModelError> {
        let d = check_shape(x, y)?;
        if weights.is_some_and(|w| w.len() != y.len()) {
            return Err(ModelError::BadShape);
        }
        Ok(match params {
            Params::Gbdt {
                iterations,
                max_depth,
                learning_rate,
            } => {
                let data = column_major(x);
                let m = Matrix::new(&data, x.len(), d);
                let base = if matches!(objective, ObjectiveType::LogLoss) {
                    0.0
                } else {
                    y.iter().sum::<f64>() / y.len() as f64
                };
                let mut b = GradientBooster::default()
                    .set_objective_type(objective)
                    .set_iterations(iterations)
                    .set_max_depth(max_depth)
                    .set_learning_rate(learning_rate)
                    .set_base_score(base)
                    .set_parallel(false)
                    .set_seed(seed);
                match weights {
                    Some(w) => b.fit(&m, y, w, None),
                    None => b.fit_unweighted(&m, y, None),
                }
                .map_err(|e| ModelError::Gbdt(e.to_string()))?;
                Regressor::Gbdt(Box::new(b))
            }
            Params::Knn { k } => {
                let std = Standardizer::fit(x);
                let xs = x.iter().map(|r| std.apply(r)).collect();
                Regressor::Knn {
                    std,
                    k: k.max(1),
                    x: xs,
                    y: y.to_vec(),
                }
            }
            Params::Linear { l2 } => fit_ridge(x, y, l2),
            Params::Mlp {
                hidden,
                epochs,
                learning_rate,
            } => Regressor::Mlp(Mlp::fit(x, y, hidden, epochs, learning_rate, seed)),
        })
    }

    pub fn predict(&self, x: &[Vec<f64>]) -> Vec<f64> {
        match self {
            Regressor::Gbdt(b) => {
                if x.is_empty() {
                    return Vec::new();
                }
                let data = column_major(x);
                b.predict(&Matrix::new(&data, x.len(), x[0].len()), false)
            }
            Regressor::Knn {
                std,
                k,
                x: train,
                y,
            } => x
                .iter()
                .map(|r| {
                    let q = std.apply(r);
                    let mut d: Vec<(f64, usize)> = train
                        .iter()
                        .enumerate()
                        .map(|(i, t)| {
                            (
                                t.iter().zip(&q).map(|(a, b)| (a - b).powi(2)).sum::<f64>(),
                                i,
                            )
                        })
                        .collect();
                    let k = (*k).min(d.len());
                    d.select_nth_unstable_by(k - 1, |a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                    d[..k].iter().map(|&(_, i)| y[i]).sum::<f64>() / k as f64
                })
                .collect(),
            Regressor::Linear { std, weights, bias } => x
                .iter()
                .map(|r| {
                    std.apply(r)
                        .iter()
                        .zip(weights)
                        .map(|(a, w)| a * w)
                        .sum::<f64>()
                        + bias
                })
                .collect(),
            Regressor::Mlp(m) => x.iter().map(|r| m.predict(r)).collect(),
        }
    }
}

/// Ridge regression on standardised features by the normal equations (Cholesky).
// Dense linear algebra reads best with explicit indices.
#[allow(clippy::needless_range_loop)]
fn fit_ridge(x: &[Vec<f64>], y: &[f64], l2: f64) -> Regressor {
    let std = Standardizer::fit(x);
    let xs: Vec<Vec<f64>> = x.iter().map(|r| std.apply(r)).collect();
    let d = xs[0].len();
    let n = xs.len() as f64;
    let y_mean = y.iter().sum::<f64>() / n;
    let mut a = vec![vec![0.0; d]; d];
    let mut b = vec![0.0; d];
    for (r, yi) in xs.iter().zip(y) {
        for i in 0..d {
            b[i] += r[i] * (yi - y_mean);
            for j in 0..=i {
                a[i][j] += r[i] * r[j];
            }
        }
    }
    for i in 0..d {
        a[i][i] += l2.max(1e-9);
        for j in 0..i {
            a[j][i] = a[i][j];
        }
    }
    // Cholesky: a = L Lᵀ; a is symmetric positive definite because of the ridge term.
    let mut l = vec![vec![0.0; d]; d];
    for i in 0..d {
        for j in 0..=i {
            let s: f64 = a[i][j] - (0..j).map(|k| l[i][k] * l[j][k]).sum::<f64>();
            l[i][j] = if i == j {
                s.max(1e-12).sqrt()
            } else {
                s / l[j][j]
            };
        }
    }
    let mut z = vec![0.0; d];
    for i in 0..d {
        z[i] = (b[i] - (0..i).map(|k| l[i][k] * z[k]).sum::<f64>()) / l[i][i];
    }
    let mut w = vec![0.0; d];
    for i in (0..d).rev() {
        w[i] = (z[i] - (i + 1..d).map(|k| l[k][i] * w[k]).sum::<f64>()) / l[i][i];
    }
    Regressor::Linear {
        std,
        weights: w,
        bias: y_mean,
    }
}

const MLP_BATCH: usize = 64;

/// One hidden layer of ReLU units, trained by mini-batch Adam on squared error
/// over standardised inputs and target.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Mlp {
    std: Standardizer,
    y_mean: f64,
    y_scale: f64,
    w1: Vec<Vec<f64>>,
    b1: Vec<f64>,
    w2: Vec<f64>,
    b2: f64,
}

impl Mlp {
    // Back-propagation over flat parameter indices reads best with explicit loops.
    #[allow(clippy::needless_range_loop)]
    fn fit(x: &[Vec<f64>], y: &[f64], hidden: usize, epochs: usize, lr: f64, seed: u64) -> Self {
        let std = Standardizer::fit(x);
        let xs: Vec<Vec<f64>> = x.iter().map(|r| std.apply(r)).collect();
        let n = xs.len() as f64;
        let y_mean = y.iter().sum::<f64>() / n;
        let y_scale = (y.iter().map(|v| (v - y_mean).powi(2)).sum::<f64>() / n)
            .sqrt()
            .max(1e-12);
        let ys: Vec<f64> = y.iter().map(|v| (v - y_mean) / y_scale).collect();
        let d = xs[0].len();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let init = (2.0 / d as f64).sqrt();
        let mut m = Mlp {
            std,
            y_mean,
            y_scale,
            w1: (0..hidden)
                .map(|_| (0..d).map(|_| rng.gen_range(-init..init)).collect())
                .collect(),
            b1: vec![0.0; hidden],
            w2: (0..hidden).map(|_| rng.gen_range(-0.1..0.1)).collect(),
            b2: 0.0,
        };
        // Adam state, one flat vector over all parameters (w1 row-major, b1, w2, b2).
        let np = hidden * d + hidden + hidden + 1;
        let (mut m1, mut v1) = (vec![0.0; np], vec![0.0; np]);
        let (beta1, beta2, eps) = (0.9, 0.999, 1e-8);
        let mut h = vec![0.0; hidden];
        let mut order: Vec<usize> = (0..xs.len()).collect();
        let mut t = 0;
        for _ in 0..epochs {
            // Deterministic Fisher-Yates shuffle from the seeded generator.
            for i in (1..order.len()).rev() {
                order.swap(i, rng.gen_range(0..=i));
            }
            for batch in order.chunks(MLP_BATCH) {
                t += 1;
                let bn = batch.len() as f64;
                let mut g = vec![0.0; np];
                for &row in batch {
                    let (r, yt) = (&xs[row], ys[row]);
                    for u in 0..hidden {
                        h[u] = (m.w1[u].iter().zip(r).map(|(w, a)| w * a).sum::<f64>() + m.b1[u])
                            .max(0.0);
                    }
                    let out = h.iter().zip(&m.w2).map(|(a, w)| a * w).sum::<f64>() + m.b2;
                    let e = 2.0 * (out - yt) / bn;
                    for u in 0..hidden {
                        g[hidden * d + hidden + u] += e * h[u];
                        if h[u] > 0.0 {
                            let gu = e * m.w2[u];
                            g[hidden * d + u] += gu;
                            for (j, a) in r.iter().enumerate() {
                                g[u * d + j] += gu * a;
                            }
                        }
                    }
                    g[np - 1] += e;
                }
                let (c1, c2) = (1.0 - f64::powi(beta1, t), 1.0 - f64::powi(beta2, t));
                let mut step = |k: usize, p: &mut f64| {
                    m1[k] = beta1 * m1[k] + (1.0 - beta1) * g[k];
                    v1[k] = beta2 * v1[k] + (1.0 - beta2) * g[k] * g[k];
                    *p -= lr * (m1[k] / c1) / ((v1[k] / c2).sqrt() + eps);
                };
                for u in 0..hidden {
                    for j in 0..d {
                        step(u * d + j, &mut m.w1[u][j]);
                    }
                    step(hidden * d + u, &mut m.b1[u]);
                    step(hidden * d + hidden + u, &mut m.w2[u]);
                }
                step(np - 1, &mut m.b2);
            }
        }
        m
    }

    fn predict(&self, r: &[f64]) -> f64 {
        let a = self.std.apply(r);
        let out: f64 = self
            .w1
            .iter()
            .zip(&self.b1)
            .zip(&self.w2)
            .map(|((w, b), w2)| {
                (w.iter().zip(&a).map(|(x, y)| x * y).sum::<f64>() + b).max(0.0) * w2
            })
            .sum::<f64>()
            + self.b2;
        out * self.y_scale + self.y_mean
    }
}
