//! The accuracy figures of one evaluation. `accuracy` is the paper's
//! (1 − mean |ŷ−y|/y); the others are the usual companions.

use serde::{Deserialize, Serialize};

/// Metrics over `n` samples with a measured target.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    /// 1 − mean relative absolute error (the paper's "accuracy"; can be
    /// negative when predictions are off by more than 100% on average).
    pub accuracy: f64,
    /// Mean absolute percentage error, in percent.
    pub mape: f64,
    /// Coefficient of determination.
    pub r2: f64,
    /// Share of samples with relative error ≤ 5%.
    pub within_5: f64,
    /// Share of samples with relative error ≤ 10%.
    pub within_10: f64,
    pub n: usize,
}

impl Metrics {
    /// Compare predictions with measurements (samples with y = 0 have no
    /// relative error and are skipped by the relative metrics). With no
    /// sample every figure is NaN (`null` in JSON), never a perfect score.
    pub fn compute(pred: &[f64], y: &[f64]) -> Metrics {
        let n = pred.len().min(y.len());
        if n == 0 {
            return Metrics {
                accuracy: f64::NAN,
                mape: f64::NAN,
                r2: f64::NAN,
                within_5: f64::NAN,
                within_10: f64::NAN,
                n: 0,
            };
        }
        let rel: Vec<f64> = (0..n)
            .filter(|&i| y[i] != 0.0)
            .map(|i| ((pred[i] - y[i]) / y[i]).abs())
            .collect();
        let m = rel.len().max(1) as f64;
        let mre = rel.iter().sum::<f64>() / m;
        let mean_y = y[..n].iter().sum::<f64>() / n.max(1) as f64;
        let ss_tot: f64 = y[..n].iter().map(|v| (v - mean_y).powi(2)).sum();
        let ss_res: f64 = (0..n).map(|i| (y[i] - pred[i]).powi(2)).sum();
        Metrics {
            accuracy: 1.0 - mre,
            mape: 100.0 * mre,
            r2: if ss_tot > 0.0 {
                1.0 - ss_res / ss_tot
            } else {
                f64::NAN
            },
            within_5: rel.iter().filter(|r| **r <= 0.05).count() as f64 / m,
            within_10: rel.iter().filter(|r| **r <= 0.10).count() as f64 / m,
            n,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_of_known_errors() {
        let m = Metrics::compute(&[110.0, 90.0, 100.0, 120.0], &[100.0, 100.0, 100.0, 100.0]);
        assert!((m.accuracy - (1.0 - 0.4 / 4.0)).abs() < 1e-12);
        assert!((m.mape - 10.0).abs() < 1e-12);
        assert_eq!(m.within_5, 0.25);
        assert_eq!(m.within_10, 0.75);
        assert_eq!(m.n, 4);
        let perfect = Metrics::compute(&[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0]);
        assert_eq!(perfect.r2, 1.0);
        let empty = Metrics::compute(&[], &[]);
        assert!(empty.accuracy.is_nan() && empty.n == 0);
    }
}
