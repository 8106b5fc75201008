//! Ordinary least squares on standardised features (with an intercept), used
//! twice: on the Pearson-selected counters, and as the Dobrescu et al.
//! baseline on the cache-access counters only.

use serde::{Deserialize, Serialize};

/// Counter names (the part after `<nf>_`) that measure cache accesses: the
/// inputs of the Dobrescu baseline, which models throughput from cache
/// access rates (counters are per sample, i.e. rates).
pub const CACHE_COUNTERS: &[&str] = &[
    "cache-references",
    "cache-misses",
    "LLC-loads",
    "LLC-load-misses",
    "LLC-stores",
    "L1-dcache-loads",
    "L1-dcache-load-misses",
];

/// Whether a `<nf>_<counter>` column is a cache-access counter.
pub fn is_cache_counter(column: &str) -> bool {
    CACHE_COUNTERS.iter().any(|c| {
        column.len() > c.len()
            && column.ends_with(c)
            && column[..column.len() - c.len()].ends_with('_')
    })
}

/// A fitted linear model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Linear {
    pub intercept: f64,
    pub coef: Vec<f64>,
}

impl Linear {
    /// Least squares with a tiny ridge term so collinear counters (common:
    /// instructions and branches move together) still give a solution.
    pub fn fit(x: &[Vec<f64>], y: &[f64]) -> Linear {
        let k = x.first().map_or(0, Vec::len);
        let n = x.len().max(1) as f64;
        let my = y.iter().sum::<f64>() / n;
        let mx: Vec<f64> = (0..k)
            .map(|j| x.iter().map(|r| r[j]).sum::<f64>() / n)
            .collect();
        let mut a = vec![vec![0.0; k]; k];
        let mut b = vec![0.0; k];
        for (r, yi) in x.iter().zip(y) {
            for i in 0..k {
                let di = r[i] - mx[i];
                b[i] += di * (yi - my);
                for j in 0..k {
                    a[i][j] += di * (r[j] - mx[j]);
                }
            }
        }
        for (i, row) in a.iter_mut().enumerate() {
            row[i] += 1e-6 * n;
        }
        let coef = solve(a, b).unwrap_or_else(|| vec![0.0; k]);
        let intercept = my - coef.iter().zip(&mx).map(|(c, m)| c * m).sum::<f64>();
        Linear { intercept, coef }
    }

    pub fn predict(&self, x: &[Vec<f64>]) -> Vec<f64> {
        x.iter()
            .map(|r| self.intercept + r.iter().zip(&self.coef).map(|(v, c)| v * c).sum::<f64>())
            .collect()
    }
}

/// The output layer of a network fitted to its targets `y` given the last
/// hidden layer's activations `h` (one row per training row), minimising
/// the network's own training objective: the mean loss (squared, or
/// absolute with `l1`) plus the optimiser's L2 weight decay `l2` on the
/// weights (the intercept is not penalised). Weight decay adds `l2 · w` to
/// the gradient of the mean loss, so at the optimum the squared loss gives
/// the ridge normal equations with penalty n·l2/2; the absolute loss is
/// solved by iteratively reweighted least squares (weights 1/|r|, penalty
/// n·l2), started from the squared-loss solution. None when the system is
/// singular or a value is not finite.
pub(crate) fn fit_output_layer(h: &[Vec<f64>], y: &[f64], l2: f64, l1: bool) -> Option<Linear> {
    let n = h.len();
    if n == 0 || y.len() != n {
        return None;
    }
    let mut fit = weighted_ridge(h, y, &vec![1.0; n], n as f64 * l2 / 2.0)?;
    if l1 {
        // A residual this small is a row the fit passes through: its
        // weight is capped so the system stays well conditioned.
        const FLOOR: f64 = 1e-6;
        for _ in 0..20 {
            let weights: Vec<f64> = fit
                .predict(h)
                .iter()
                .zip(y)
                .map(|(p, t)| 1.0 / (p - t).abs().max(FLOOR))
                .collect();
            let next = weighted_ridge(h, y, &weights, n as f64 * l2)?;
            let moved = next
                .coef
                .iter()
                .zip(&fit.coef)
                .map(|(a, b)| (a - b).abs())
                .chain([(next.intercept - fit.intercept).abs()])
                .fold(0.0, f64::max);
            fit = next;
            if moved < 1e-7 {
                break;
            }
        }
    }
    Some(fit)
}

/// As [`fit_output_layer`] for an output bounded by a logistic,
/// prediction = `low` + `span` · σ(b + c·h) ([`crate::mlp::MlpConfig::bounded_output`]),
/// with the same objective (mean squared or absolute loss plus the weight
/// decay on c). It is no longer quadratic in (b, c), so it is minimised by
/// Gauss–Newton from `start` (the layer as trained): each step solves the
/// weighted ridge of the loss linearised in the pre-activation z (working
/// target z + r/σ′, weight σ′², times 1/|r| for the absolute loss, as the
/// reweighting in [`fit_output_layer`]), halved until the objective falls.
/// The result is never worse than `start` on that objective. None when
/// `start` does not fit `h` or a value is not finite.
pub(crate) fn fit_bounded_output_layer(
    h: &[Vec<f64>],
    y: &[f64],
    l2: f64,
    l1: bool,
    (low, span): (f64, f64),
    start: &Linear,
) -> Option<Linear> {
    let n = h.len();
    if n == 0 || y.len() != n || h.iter().any(|r| r.len() != start.coef.len()) {
        return None;
    }
    let logistic = |z: f64| 1.0 / (1.0 + (-z).exp());
    // The objective of the mean loss with weight decay, times n (see
    // `fit_output_layer`): Σ loss + n·l2/2 · |c|².
    let objective = |fit: &Linear| {
        let loss: f64 = fit
            .predict(h)
            .iter()
            .zip(y)
            .map(|(z, t)| {
                let r = low + span * logistic(*z) - t;
                if l1 {
                    r.abs()
                } else {
                    r * r
                }
            })
            .sum();
        loss + n as f64 * l2 / 2.0 * fit.coef.iter().map(|c| c * c).sum::<f64>()
    };
    let penalty = if l1 {
        n as f64 * l2
    } else {
        n as f64 * l2 / 2.0
    };
    // σ′ is floored so a saturated row's working target stays finite; its
    // weight (σ′²) is then negligible anyway.
    let slope_floor = 1e-4 * span.abs().max(f64::MIN_POSITIVE);
    const FLOOR: f64 = 1e-6;
    let mut fit = start.clone();
    let mut best = objective(&fit);
    if !best.is_finite() {
        return None;
    }
    for _ in 0..30 {
        let z = fit.predict(h);
        let mut target = Vec::with_capacity(n);
        let mut weights = Vec::with_capacity(n);
        for (zi, t) in z.iter().zip(y) {
            let s = logistic(*zi);
            let slope = (span * s * (1.0 - s)).max(slope_floor);
            let r = t - (low + span * s);
            target.push(zi + r / slope);
            let w = slope * slope;
            weights.push(if l1 { w / r.abs().max(FLOOR) } else { w });
        }
        let Some(step) = weighted_ridge(h, &target, &weights, penalty) else {
            break;
        };
        let mut improved = None;
        let mut t = 1.0;
        for _ in 0..10 {
            let trial = Linear {
                intercept: fit.intercept + t * (step.intercept - fit.intercept),
                coef: fit
                    .coef
                    .iter()
                    .zip(&step.coef)
                    .map(|(a, b)| a + t * (b - a))
                    .collect(),
            };
            let o = objective(&trial);
            if o.is_finite() && o < best {
                improved = Some((trial, o));
                break;
            }
            t /= 2.0;
        }
        let Some((trial, o)) = improved else {
            break;
        };
        let gain = best - o;
        fit = trial;
        best = o;
        // Converged to a part in 10⁷: further steps move nothing a
        // prediction in f32 would show.
        if gain <= 1e-7 * best.max(f64::MIN_POSITIVE) {
            break;
        }
    }
    Some(fit)
}

/// Weighted least squares with `penalty` on the coefficients (not the
/// intercept): minimises Σ wᵢ (b + c·xᵢ − yᵢ)² + penalty·|c|². A tiny
/// ridge keeps constant columns (a dead ReLU unit) solvable.
fn weighted_ridge(x: &[Vec<f64>], y: &[f64], w: &[f64], penalty: f64) -> Option<Linear> {
    let k = x.first().map_or(0, Vec::len);
    let total: f64 = w.iter().sum();
    if total <= 0.0 || !total.is_finite() {
        return None;
    }
    let my = x
        .iter()
        .zip(y)
        .zip(w)
        .map(|((_, yi), wi)| wi * yi)
        .sum::<f64>()
        / total;
    let mut mx = vec![0.0; k];
    for (r, wi) in x.iter().zip(w) {
        for (m, v) in mx.iter_mut().zip(r) {
            *m += wi * v;
        }
    }
    mx.iter_mut().for_each(|m| *m /= total);
    let mut a = vec![vec![0.0; k]; k];
    let mut b = vec![0.0; k];
    let mut d = vec![0.0; k];
    for ((r, yi), wi) in x.iter().zip(y).zip(w) {
        for (dj, (v, m)) in d.iter_mut().zip(r.iter().zip(&mx)) {
            *dj = v - m;
        }
        let ry = wi * (yi - my);
        for i in 0..k {
            b[i] += d[i] * ry;
            let wdi = wi * d[i];
            // The upper triangle only; mirrored below.
            for j in i..k {
                a[i][j] += wdi * d[j];
            }
        }
    }
    for i in 1..k {
        let (above, from_i) = a.split_at_mut(i);
        for (j, row) in above.iter().enumerate() {
            from_i[0][j] = row[i];
        }
    }
    for (i, row) in a.iter_mut().enumerate() {
        row[i] += penalty + 1e-6 * total;
    }
    let coef = solve(a, b)?;
    let intercept = my - coef.iter().zip(&mx).map(|(c, m)| c * m).sum::<f64>();
    intercept.is_finite().then_some(Linear { intercept, coef })
}

/// Gaussian elimination with partial pivoting; None when singular.
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let k = b.len();
    for col in 0..k {
        let piv = (col..k).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[piv][col].abs() < 1e-300 {
            return None;
        }
        a.swap(col, piv);
        b.swap(col, piv);
        let (top, below) = a.split_at_mut(col + 1);
        let pivot_row = &top[col];
        for (r, row) in below.iter_mut().enumerate() {
            let f = row[col] / pivot_row[col];
            for (x, p) in row[col..].iter_mut().zip(&pivot_row[col..]) {
                *x -= f * p;
            }
            b[col + 1 + r] -= f * b[col];
        }
    }
    let mut x = vec![0.0; k];
    for i in (0..k).rev() {
        let s: f64 = (i + 1..k).map(|j| a[i][j] * x[j]).sum();
        x[i] = (b[i] - s) / a[i][i];
    }
    x.iter().all(|v| v.is_finite()).then_some(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Mean loss plus the weight decay term, as the optimiser sees it.
    fn objective(f: &Linear, h: &[Vec<f64>], y: &[f64], l2: f64, l1: bool) -> f64 {
        let n = h.len() as f64;
        let loss: f64 = f
            .predict(h)
            .iter()
            .zip(y)
            .map(|(p, t)| if l1 { (p - t).abs() } else { (p - t).powi(2) })
            .sum::<f64>()
            / n;
        loss + l2 / 2.0 * f.coef.iter().map(|c| c * c).sum::<f64>()
    }

    fn rows() -> (Vec<Vec<f64>>, Vec<f64>) {
        let h: Vec<Vec<f64>> = (0..60)
            .map(|i| vec![(i as f64 / 7.0).sin(), ((i * 13) % 11) as f64 / 11.0, 0.0])
            .collect();
        // A line plus noise, and every tenth row far off (outliers).
        let y = h
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let base = 0.5 + 2.0 * r[0] - 1.0 * r[1] + ((i * 7) % 5) as f64 * 0.01;
                if i % 10 == 3 {
                    base + 5.0
                } else {
                    base
                }
            })
            .collect();
        (h, y)
    }

    #[test]
    fn the_output_refit_minimises_the_training_objective() {
        let (h, y) = rows();
        for (l2, l1) in [(0.0, false), (1e-2, false), (0.0, true), (1e-2, true)] {
            let f = fit_output_layer(&h, &y, l2, l1).unwrap();
            let best = objective(&f, &h, &y, l2, l1);
            // No nearby output layer does better: each coefficient and the
            // intercept moved by ±0.01 and ±0.001 (the constant column,
            // a dead unit, included).
            for j in 0..=f.coef.len() {
                for step in [0.01, -0.01, 0.001, -0.001] {
                    let mut g = f.clone();
                    if j == f.coef.len() {
                        g.intercept += step;
                    } else {
                        g.coef[j] += step;
                    }
                    let other = objective(&g, &h, &y, l2, l1);
                    // Reweighting approaches the L1 optimum (a vertex)
                    // without reaching it exactly: within 1e-4 of it.
                    let slack = if l1 { 1e-4 * best } else { 1e-9 };
                    assert!(
                        other >= best - slack,
                        "l2 {l2} l1 {l1}: moving {j} by {step} gives {other} < {best}"
                    );
                }
            }
        }
        // L1 follows the rows that agree and ignores the outliers; the
        // squared loss is pulled towards them.
        let l1 = fit_output_layer(&h, &y, 0.0, true).unwrap();
        let l2 = fit_output_layer(&h, &y, 0.0, false).unwrap();
        assert!((l1.intercept - 0.52).abs() < 0.03, "{}", l1.intercept);
        assert!(
            l2.intercept > l1.intercept + 0.2,
            "{} vs {}",
            l2.intercept,
            l1.intercept
        );
        assert!((l1.coef[0] - 2.0).abs() < 0.05, "{:?}", l1.coef);
    }

    #[test]
    fn the_bounded_refit_minimises_the_objective_through_the_logistic() {
        // Targets made by a bounded layer (low −1, span 3): b 0.2, c (1.5,
        // −2, 0) on the rows above, a few rows pushed into saturation.
        let (h, _) = rows();
        let (low, span) = (-1.0, 3.0);
        let truth = Linear {
            intercept: 0.2,
            coef: vec![1.5, -2.0, 0.0],
        };
        let y: Vec<f64> = truth
            .predict(&h)
            .iter()
            .map(|z| low + span / (1.0 + (-z).exp()))
            .collect();
        let bounded = |f: &Linear, l1: bool| {
            f.predict(&h)
                .iter()
                .zip(&y)
                .map(|(z, t)| {
                    let r = low + span / (1.0 + (-z).exp()) - t;
                    if l1 {
                        r.abs()
                    } else {
                        r * r
                    }
                })
                .sum::<f64>()
        };
        let start = Linear {
            intercept: 0.0,
            coef: vec![0.1, 0.1, 0.1],
        };
        for l1 in [false, true] {
            let f = fit_bounded_output_layer(&h, &y, 0.0, l1, (low, span), &start).unwrap();
            // Gauss–Newton reaches the layer that made the targets; the
            // least-squares layer of the linear output cannot fit them.
            // (Reweighting for L1 converges linearly, not quadratically.)
            let reached = if l1 { 1e-3 } else { 1e-6 };
            assert!(
                bounded(&f, l1) < reached * bounded(&start, l1),
                "l1 {l1}: {f:?}"
            );
            assert!((f.coef[0] - 1.5).abs() < 1e-2 && (f.coef[1] + 2.0).abs() < 1e-2);
            let linear = fit_output_layer(&h, &y, 0.0, l1).unwrap();
            let linear_loss: f64 = linear
                .predict(&h)
                .iter()
                .zip(&y)
                .map(|(p, t)| if l1 { (p - t).abs() } else { (p - t).powi(2) })
                .sum();
            assert!(bounded(&f, l1) < 1e-3 * linear_loss);
        }
        // With weight decay it is never worse than where it started, and
        // a second fit from its result stays there.
        let f = fit_bounded_output_layer(&h, &y, 1e-2, false, (low, span), &start).unwrap();
        let again = fit_bounded_output_layer(&h, &y, 1e-2, false, (low, span), &f).unwrap();
        for (a, b) in f.coef.iter().zip(&again.coef) {
            assert!((a - b).abs() < 1e-3, "{f:?} vs {again:?}");
        }
        // A start of the wrong width is refused, not panicked on.
        assert!(
            fit_bounded_output_layer(&h, &y, 0.0, false, (low, span), &truth_short()).is_none()
        );
    }

    fn truth_short() -> Linear {
        Linear {
            intercept: 0.0,
            coef: vec![1.0],
        }
    }

    #[test]
    fn recovers_a_plane() {
        let x: Vec<Vec<f64>> = (0..20)
            .map(|i| vec![i as f64, ((i * 7) % 5) as f64])
            .collect();
        let y: Vec<f64> = x.iter().map(|r| 3.0 + 2.0 * r[0] - 0.5 * r[1]).collect();
        let m = Linear::fit(&x, &y);
        assert!((m.intercept - 3.0).abs() < 1e-3, "{m:?}");
        assert!((m.coef[0] - 2.0).abs() < 1e-3 && (m.coef[1] + 0.5).abs() < 1e-3);
    }

    #[test]
    fn cache_counters_by_suffix() {
        assert!(is_cache_counter("bridge_LLC-loads"));
        assert!(is_cache_counter("nf_router_cache-misses"));
        assert!(!is_cache_counter("bridge_cycles"));
        assert!(!is_cache_counter("LLC-loads"));
    }
}
