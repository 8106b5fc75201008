//! Distances between instruction distributions (Clara Table 1): how close
//! a generator's IR opcode mix is to real NFs'. Every metric is a distance
//! (smaller is closer) over the union of the two supports.

use nfc_core::insight::{InstrClass, IrFunction};
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

/// Relative frequency of each whole compacted word (`add i32 i32 const`):
/// finer than [`opcode_distribution`], it sees types, operand shapes,
/// header fields and framework calls — what the compute models read.
pub fn word_distribution<'a>(words: impl IntoIterator<Item = &'a str>) -> BTreeMap<String, f64> {
    let mut counts: BTreeMap<String, f64> = BTreeMap::new();
    let mut n = 0.0;
    for w in words {
        *counts.entry(w.to_string()).or_default() += 1.0;
        n += 1.0;
    }
    if n > 0.0 {
        for v in counts.values_mut() {
            *v /= n;
        }
    }
    counts
}

/// The words that separate two distributions most: each word's share of
/// the Jensen–Shannon divergence between `p` (real) and `q` (synthesised),
/// largest first, as (word, p, q, contribution in bits).
pub fn word_shift(
    p: &BTreeMap<String, f64>,
    q: &BTreeMap<String, f64>,
) -> Vec<(String, f64, f64, f64)> {
    let keys: BTreeSet<&String> = p.keys().chain(q.keys()).collect();
    let term = |a: f64, m: f64| if a > 0.0 { a * (a / m).ln() } else { 0.0 };
    let mut out: Vec<(String, f64, f64, f64)> = keys
        .into_iter()
        .map(|k| {
            let (a, b) = (
                p.get(k).copied().unwrap_or(0.0),
                q.get(k).copied().unwrap_or(0.0),
            );
            let m = (a + b) / 2.0;
            let c = (term(a, m) + term(b, m)) / 2.0 / std::f64::consts::LN_2;
            (k.clone(), a, b, c)
        })
        .collect();
    out.sort_by(|x, y| y.3.total_cmp(&x.3).then_with(|| x.0.cmp(&y.0)));
    out
}

/// Shape statistics of a set of functions: what an instruction mix alone
/// does not show (function and block sizes, calls, 64-bit arithmetic,
/// memory classes) and the proxy's machine instructions per IR word.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Shape {
    pub functions: usize,
    pub words_per_function: f64,
    pub words_per_function_p90: f64,
    pub blocks_per_function: f64,
    pub words_per_block: f64,
    /// Blocks ending in a conditional branch, a switch, a return.
    pub cond_block_share: f64,
    pub switch_block_share: f64,
    /// Share of words that are calls (own functions, framework, intrinsics).
    pub call_share: f64,
    /// Share of words with a 64-bit operand or result (`i64`).
    pub i64_share: f64,
    pub stack_share: f64,
    pub state_share: f64,
    pub packet_share: f64,
    pub indirect_share: f64,
    /// Proxy compute instructions per IR word (functions with counts).
    pub proxy_per_word: f64,
}

pub fn shape<'a>(functions: impl IntoIterator<Item = &'a IrFunction>) -> Shape {
    let fs: Vec<&IrFunction> = functions.into_iter().filter(|f| !f.is_empty()).collect();
    let n = fs.len().max(1) as f64;
    let mut sizes: Vec<usize> = fs.iter().map(|f| f.len()).collect();
    sizes.sort_unstable();
    let words: usize = sizes.iter().sum();
    let blocks: usize = fs.iter().map(|f| f.blocks.len()).sum();
    let w = words.max(1) as f64;
    let b = blocks.max(1) as f64;
    let ends = |p: &dyn Fn(&str) -> bool| {
        fs.iter()
            .flat_map(|f| &f.blocks)
            .filter(|bl| bl.words.last().is_some_and(|x| p(x)))
            .count() as f64
            / b
    };
    let share = |p: &dyn Fn(&str) -> bool| {
        fs.iter().flat_map(|f| f.words()).filter(|x| p(x)).count() as f64 / w
    };
    let class = |c: InstrClass| fs.iter().map(|f| f.count(c)).sum::<usize>() as f64 / w;
    let (mut pw, mut pc) = (0.0, 0.0);
    for f in &fs {
        if let Some(c) = f.proxy {
            pw += f.len() as f64;
            pc += f64::from(c.compute());
        }
    }
    Shape {
        functions: fs.len(),
        words_per_function: words as f64 / n,
        words_per_function_p90: sizes
            .get((sizes.len() * 9 / 10).min(sizes.len().saturating_sub(1)))
            .map_or(0.0, |x| *x as f64),
        blocks_per_function: blocks as f64 / n,
        words_per_block: words as f64 / b,
        cond_block_share: ends(&|x| x == "br cond"),
        switch_block_share: ends(&|x| x.starts_with("switch")),
        call_share: share(&|x| x.starts_with("call ")),
        i64_share: share(&|x| x.split_whitespace().any(|t| t == "i64")),
        stack_share: class(InstrClass::StackMemory),
        state_share: class(InstrClass::StatefulMemory),
        packet_share: class(InstrClass::PacketMemory),
        indirect_share: class(InstrClass::IndirectMemory),
        proxy_per_word: if pw > 0.0 { pc / pw } else { f64::NAN },
    }
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
