//! From experiments to model inputs: the target, the feature matrix, Pearson
//! feature selection and standardisation. Selection and scaling are fitted on
//! the training fold only and saved with the model.

use crate::data::{Experiment, Latency};
use serde::{Deserialize, Serialize};

/// What a model predicts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Target {
    /// `output_rate` (warm-up rows with 0 are never samples).
    Throughput,
    /// `latency` where a probe returned; censored samples are a class of
    /// their own (`latency.rs`).
    Latency,
}

impl Target {
    pub fn name(self) -> &'static str {
        match self {
            Target::Throughput => "throughput",
            Target::Latency => "latency",
        }
    }
}

/// Rows of experiments in one feature order, with the target.
#[derive(Debug, Clone, Default)]
pub struct Frame {
    pub features: Vec<String>,
    /// Row-major, `features.len()` values per row.
    pub x: Vec<Vec<f64>>,
    /// The target; for latency, NaN where the sample is censored.
    pub y: Vec<f64>,
    /// Censored latency (no probe returned).
    pub censored: Vec<bool>,
    /// Index of the experiment each row comes from.
    pub experiment: Vec<usize>,
    /// Line in the experiment's file.
    pub line: Vec<usize>,
}

/// A feature the model needs is missing in an experiment.
#[derive(Debug, thiserror::Error)]
#[error("{experiment}: no column `{feature}` (the model was trained with it)")]
pub struct MissingFeature {
    pub experiment: String,
    pub feature: String,
}

/// The counter columns every experiment has, in the first one's order.
pub fn common_counters(experiments: &[Experiment]) -> Vec<String> {
    let Some(first) = experiments.first() else {
        return vec![];
    };
    first
        .counters
        .iter()
        .filter(|c| experiments.iter().all(|e| e.counter_index(c).is_some()))
        .cloned()
        .collect()
}

impl Frame {
    /// Build a frame over `features` (every experiment must have them all).
    pub fn build(
        experiments: &[Experiment],
        features: &[String],
        target: Target,
    ) -> Result<Frame, MissingFeature> {
        let mut f = Frame {
            features: features.to_vec(),
            ..Frame::default()
        };
        for (ei, e) in experiments.iter().enumerate() {
            let idx: Vec<usize> = features
                .iter()
                .map(|name| {
                    e.counter_index(name).ok_or_else(|| MissingFeature {
                        experiment: e.name.clone(),
                        feature: name.clone(),
                    })
                })
                .collect::<Result<_, _>>()?;
            for s in &e.samples {
                let (y, censored) = match target {
                    Target::Throughput => (s.output_rate, false),
                    Target::Latency => match s.latency {
                        Latency::Measured(v) => (v, false),
                        Latency::Censored => (f64::NAN, true),
                        Latency::Absent => continue,
                    },
                };
                f.x.push(idx.iter().map(|&i| s.counters[i]).collect());
                f.y.push(y);
                f.censored.push(censored);
                f.experiment.push(ei);
                f.line.push(s.line);
            }
        }
        Ok(f)
    }

    pub fn len(&self) -> usize {
        self.y.len()
    }

    pub fn is_empty(&self) -> bool {
        self.y.is_empty()
    }

    /// The rows at `idx`.
    pub fn subset(&self, idx: &[usize]) -> Frame {
        Frame {
            features: self.features.clone(),
            x: idx.iter().map(|&i| self.x[i].clone()).collect(),
            y: idx.iter().map(|&i| self.y[i]).collect(),
            censored: idx.iter().map(|&i| self.censored[i]).collect(),
            experiment: idx.iter().map(|&i| self.experiment[i]).collect(),
            line: idx.iter().map(|&i| self.line[i]).collect(),
        }
    }

    /// Only the rows with a measured target (drops censored latency).
    pub fn measured(&self) -> Frame {
        let idx: Vec<usize> = (0..self.len()).filter(|&i| !self.censored[i]).collect();
        self.subset(&idx)
    }

    /// Only the columns at `cols`, in that order.
    pub fn select(&self, cols: &[usize]) -> Frame {
        Frame {
            features: cols.iter().map(|&c| self.features[c].clone()).collect(),
            x: self
                .x
                .iter()
                .map(|r| cols.iter().map(|&c| r[c]).collect())
                .collect(),
            ..self.clone()
        }
    }

    pub fn column(&self, c: usize) -> Vec<f64> {
        self.x.iter().map(|r| r[c]).collect()
    }
}

/// Pearson correlation; None when either side has no variance.
pub fn pearson(a: &[f64], b: &[f64]) -> Option<f64> {
    let n = a.len().min(b.len());
    if n < 2 {
        return None;
    }
    let ma = a[..n].iter().sum::<f64>() / n as f64;
    let mb = b[..n].iter().sum::<f64>() / n as f64;
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for i in 0..n {
        let (da, db) = (a[i] - ma, b[i] - mb);
        sab += da * db;
        saa += da * da;
        sbb += db * db;
    }
    // A column constant up to rounding has no information (and a ratio of
    // rounding noise is not a correlation).
    if saa <= 1e-12 * (ma * ma + 1.0) * n as f64 || sbb <= 1e-12 * (mb * mb + 1.0) * n as f64 {
        return None;
    }
    Some(sab / (saa.sqrt() * sbb.sqrt()))
}

/// The outcome of Pearson selection, saved with the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Selection {
    /// |r| at or above this keeps a feature.
    pub threshold: f64,
    /// Every candidate with its r on the training fold (None: constant).
    pub pearson: Vec<(String, Option<f64>)>,
    /// The kept features, by decreasing |r|.
    pub selected: Vec<String>,
}

/// Keep the features whose |Pearson r| with the target on the training
/// fold is at least `threshold`; constant (e.g. all-zero) columns never. When
/// none reaches the threshold, the single best is kept (and the selection
/// says so by its r).
pub fn select_pearson(train: &Frame, threshold: f64) -> Selection {
    let pearson: Vec<(String, Option<f64>)> = (0..train.features.len())
        .map(|c| {
            (
                train.features[c].clone(),
                pearson(&train.column(c), &train.y),
            )
        })
        .collect();
    let mut ranked: Vec<(String, f64)> = pearson
        .iter()
        .filter_map(|(n, r)| r.map(|r| (n.clone(), r.abs())))
        .collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let mut selected: Vec<String> = ranked
        .iter()
        .filter(|(_, r)| *r >= threshold)
        .map(|(n, _)| n.clone())
        .collect();
    if selected.is_empty() {
        selected.extend(ranked.first().map(|(n, _)| n.clone()));
    }
    Selection {
        threshold,
        pearson,
        selected,
    }
}

/// Per-column mean and standard deviation of the training fold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scaler {
    pub mean: Vec<f64>,
    pub std: Vec<f64>,
}

impl Scaler {
    pub fn fit(x: &[Vec<f64>]) -> Scaler {
        let cols = x.first().map_or(0, Vec::len);
        let n = x.len().max(1) as f64;
        let mut mean = vec![0.0; cols];
        for r in x {
            for (m, v) in mean.iter_mut().zip(r) {
                *m += v / n;
            }
        }
        let mut var = vec![0.0; cols];
        for r in x {
            for ((s, v), m) in var.iter_mut().zip(r).zip(&mean) {
                *s += (v - m) * (v - m) / n;
            }
        }
        let std = var
            .into_iter()
            .map(|v: f64| if v.sqrt() > 0.0 { v.sqrt() } else { 1.0 })
            .collect();
        Scaler { mean, std }
    }

    pub fn fit_1d(y: &[f64]) -> Scaler {
        Scaler::fit(&y.iter().map(|v| vec![*v]).collect::<Vec<_>>())
    }

    pub fn transform(&self, x: &[Vec<f64>]) -> Vec<Vec<f64>> {
        x.iter()
            .map(|r| {
                r.iter()
                    .zip(self.mean.iter().zip(&self.std))
                    .map(|(v, (m, s))| (v - m) / s)
                    .collect()
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pearson_of_linear_and_constant() {
        assert!((pearson(&[1.0, 2.0, 3.0], &[2.0, 4.0, 6.5]).unwrap() - 0.9986).abs() < 1e-3);
        assert_eq!(pearson(&[0.0, 0.0, 0.0], &[1.0, 2.0, 3.0]), None);
    }

    #[test]
    fn selection_drops_constant_and_weak_columns() {
        let f = Frame {
            features: vec!["a_zero".into(), "a_good".into(), "a_noise".into()],
            x: vec![
                vec![0.0, 1.0, 5.0],
                vec![0.0, 2.0, -5.0],
                vec![0.0, 3.0, -5.0],
                vec![0.0, 4.0, 5.0],
            ],
            y: vec![10.0, 20.0, 30.0, 40.0],
            ..Frame::default()
        };
        let s = select_pearson(&f, 0.5);
        assert_eq!(s.selected, vec!["a_good"]);
        assert_eq!(s.pearson[0].1, None);
    }
}
