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
