//! Distances between instruction distributions (Clara Table 1): how close
//! a generator's IR opcode mix is to real NFs'. Every metric is a distance
//! (smaller is closer) over the union of the two supports.

use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// Relative frequency of each opcode (the first token of each compacted word).
pub fn opcode_distribution<'a>(words: impl IntoIterator<Item = &'a str>) -> BTreeMap<String, f64> {
    let mut counts: BTreeMap<String, f64> = BTreeMap::new();
    let mut n = 0.0;
    for w in words {
        let op = w.split_whitespace().next().unwrap_or(w);
        *counts.entry(op.to_string()).or_default() += 1.0;
        n += 1.0;
    }
    if n > 0.0 {
        for v in counts.values_mut() {
            *v /= n;
        }
    }
    counts
}

/// Table 1's metrics between two distributions.
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct Similarity {
    pub jensen_shannon: f64,
    /// Rényi divergence of order 2, D₂(P‖Q), both smoothed (add ε = 1e-3 per
    /// opcode, renormalised) so an opcode one side never uses keeps it finite.
    pub renyi2: f64,
    pub bhattacharyya: f64,
    pub cosine: f64,
    pub euclidean: f64,
    /// Total variation as Clara reports it: Σ|p−q| (the L1 distance).
    pub variational: f64,
}

impl Similarity {
    /// (name, value) pairs in a stable order.
    pub fn entries(&self) -> [(&'static str, f64); 6] {
        [
            ("Jensen-Shannon divergence", self.jensen_shannon),
            ("Renyi divergence (order 2)", self.renyi2),
            ("Bhattacharyya distance", self.bhattacharyya),
            ("Cosine distance", self.cosine),
            ("Euclidean distance", self.euclidean),
            ("Variational distance", self.variational),
        ]
    }
}

/// Distances between `p` (real) and `q` (synthesised).
pub fn compare(p: &BTreeMap<String, f64>, q: &BTreeMap<String, f64>) -> Similarity {
    let keys: BTreeSet<&String> = p.keys().chain(q.keys()).collect();
    let pv: Vec<f64> = keys
        .iter()
        .map(|k| p.get(*k).copied().unwrap_or(0.0))
        .collect();
    let qv: Vec<f64> = keys
        .iter()
        .map(|k| q.get(*k).copied().unwrap_or(0.0))
        .collect();
    let kl = |a: &[f64], b: &[f64]| -> f64 {
        a.iter()
            .zip(b)
            .filter(|(x, _)| **x > 0.0)
            .map(|(x, y)| x * (x / y).ln())
            .sum()
    };
    let m: Vec<f64> = pv.iter().zip(&qv).map(|(a, b)| (a + b) / 2.0).collect();
    let js = (kl(&pv, &m) + kl(&qv, &m)) / 2.0 / std::f64::consts::LN_2;
    let eps = 1e-3;
    let smooth = |v: &[f64]| -> Vec<f64> {
        let z: f64 = v.iter().map(|x| x + eps).sum();
        v.iter().map(|x| (x + eps) / z).collect()
    };
    let (ps, qs) = (smooth(&pv), smooth(&qv));
    let renyi2 = ps.iter().zip(&qs).map(|(a, b)| a * a / b).sum::<f64>().ln();
    let bc: f64 = pv.iter().zip(&qv).map(|(a, b)| (a * b).sqrt()).sum();
    let bhattacharyya = -bc.max(1e-300).ln();
    let dot: f64 = pv.iter().zip(&qv).map(|(a, b)| a * b).sum();
    let np = pv.iter().map(|x| x * x).sum::<f64>().sqrt();
    let nq = qv.iter().map(|x| x * x).sum::<f64>().sqrt();
    let cosine = if np > 0.0 && nq > 0.0 {
        1.0 - dot / (np * nq)
    } else {
        1.0
    };
    let euclidean = pv
        .iter()
        .zip(&qv)
        .map(|(a, b)| (a - b) * (a - b))
        .sum::<f64>()
        .sqrt();
    let variational = pv.iter().zip(&qv).map(|(a, b)| (a - b).abs()).sum();
    Similarity {
        jensen_shannon: js,
        renyi2,
        bhattacharyya,
        cosine,
        euclidean,
        variational,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_distributions_are_at_distance_zero_and_disjoint_ones_far() {
        let a = opcode_distribution(["add i32", "load i32 stack", "add i32 const"]);
        let s = compare(&a, &a);
        for (n, v) in s.entries() {
            assert!(v.abs() < 1e-5, "{n} = {v}");
        }
        let b = opcode_distribution(["xor i32", "shl i32"]);
        let d = compare(&a, &b);
        assert!((d.jensen_shannon - 1.0).abs() < 1e-9, "{d:?}");
        assert!((d.variational - 2.0).abs() < 1e-9);
        assert!((d.cosine - 1.0).abs() < 1e-9);
    }
}
