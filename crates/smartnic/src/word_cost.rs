//! A per-word linear cost model of a function's compute instructions on the
//! proxy NIC ISA (Clara §3.2's target, without libtorch): every compacted
//! IR word (`add i32 i32 const`, `call fw:nf_parse a2`, …) costs a learned
//! number of machine instructions, a function costs a fixed base plus the
//! sum of its words, and a block's prediction is the sum of its words — so
//! per-block predictions add up to the function's exactly.
//!
//! It is what `nfc insight` uses by default (the root `nfc` binary links
//! no libtorch; the LSTM of `nfc-predictor` runs through `nfc-predict` with
//! `--model`). Fitted by ridge regression (`models::Params::Linear`) on the
//! per-function proxy counts of synthesised programs; the ridge strength is
//! chosen by WMAPE on validation programs (split by program, never by
//! function), then the model is refitted on training + validation.

use crate::models::{ModelError, Params, Regressor};
use nfc_core::insight::IrFunction;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Format tag of a saved model.
pub const FORMAT: &str = "nfc-insight-word-cost/1";

/// A fitted per-word cost model (the saved form is this struct as JSON).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WordCostModel {
    pub format: String,
    /// Machine instructions per occurrence of each word.
    pub words: BTreeMap<String, f64>,
    /// Cost of a word never seen in training: the mean cost per training word.
    pub unknown: f64,
    /// Machine instructions of every function regardless of its words (prologue, epilogue).
    pub base: f64,
    /// Ridge strength (on standardised counts), chosen on validation programs.
    pub l2: f64,
    /// WMAPE on the validation programs at the chosen `l2`.
    pub val_wmape: f64,
    pub train_functions: usize,
    pub val_functions: usize,
}

/// Σ|ŷ−y| / Σy (NaN when Σy is 0).
pub fn wmape(pred: &[f64], y: &[f64]) -> f64 {
    let den: f64 = y.iter().sum();
    if den <= 0.0 {
        return f64::NAN;
    }
    pred.iter().zip(y).map(|(p, t)| (p - t).abs()).sum::<f64>() / den
}

/// The ridge strengths tried on the validation programs.
pub const L2_GRID: [f64; 6] = [0.01, 0.1, 1.0, 10.0, 100.0, 1000.0];

fn target(f: &IrFunction) -> Option<f64> {
    f.proxy.map(|p| p.compute() as f64)
}

fn fit_words(vocab: &[String], fs: &[&IrFunction], l2: f64) -> Result<WordCostModel, ModelError> {
    let index: BTreeMap<&str, usize> = vocab
        .iter()
        .enumerate()
        .map(|(i, w)| (w.as_str(), i))
        .collect();
    let row = |f: &IrFunction| {
        let mut r = vec![0.0; vocab.len()];
        for w in f.words() {
            if let Some(&i) = index.get(w) {
                r[i] += 1.0;
            }
        }
        r
    };
    let x: Vec<Vec<f64>> = fs.iter().map(|f| row(f)).collect();
    let y: Vec<f64> = fs.iter().filter_map(|f| target(f)).collect();
    if x.is_empty() || y.len() != x.len() || vocab.is_empty() {
        return Err(ModelError::BadShape);
    }
    let reg = Regressor::fit(Params::Linear { l2 }, &x, &y, 0)?;
    // A linear model: the base is its value at zero words, a word's cost
    // the change one occurrence makes.
    let mut probes = vec![vec![0.0; vocab.len()]];
    for i in 0..vocab.len() {
        let mut e = vec![0.0; vocab.len()];
        e[i] = 1.0;
        probes.push(e);
    }
    let p = reg.predict(&probes);
    let base = p[0];
    let words: BTreeMap<String, f64> = vocab
        .iter()
        .enumerate()
        .map(|(i, w)| (w.clone(), p[i + 1] - base))
        .collect();
    let n_words: usize = fs.iter().map(|f| f.len()).sum();
    let unknown = (y.iter().sum::<f64>() - base * fs.len() as f64) / n_words.max(1) as f64;
    Ok(WordCostModel {
        format: FORMAT.into(),
        words,
        unknown,
        base,
        l2,
        val_wmape: f64::NAN,
        train_functions: fs.len(),
        val_functions: 0,
    })
}

impl WordCostModel {
    /// Fit on `train`, choose `l2` by WMAPE on `val`, refit on both. Only
    /// functions with proxy counts are used.
    pub fn fit(train: &[&IrFunction], val: &[&IrFunction]) -> Result<WordCostModel, ModelError> {
        let train: Vec<&IrFunction> = train
            .iter()
            .copied()
            .filter(|f| f.proxy.is_some())
            .collect();
        let val: Vec<&IrFunction> = val.iter().copied().filter(|f| f.proxy.is_some()).collect();
        let vocab = |fs: &[&IrFunction]| {
            let mut v: Vec<String> = fs
                .iter()
                .flat_map(|f| f.words().map(str::to_string))
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect();
            v.sort();
            v
        };
        let tv = vocab(&train);
        let vy: Vec<f64> = val.iter().filter_map(|f| target(f)).collect();
        let mut best: Option<(f64, f64)> = None;
        for l2 in L2_GRID {
            let m = fit_words(&tv, &train, l2)?;
            let score = if val.is_empty() {
                0.0
            } else {
                wmape(&val.iter().map(|f| m.predict(f)).collect::<Vec<_>>(), &vy)
            };
            if best.is_none_or(|(s, _)| score < s) {
                best = Some((score, l2));
            }
        }
        let (score, l2) = best.ok_or(ModelError::BadShape)?;
        let all: Vec<&IrFunction> = train.iter().chain(&val).copied().collect();
        let mut m = fit_words(&vocab(&all), &all, l2)?;
        m.val_wmape = score;
        m.train_functions = train.len();
        m.val_functions = val.len();
        Ok(m)
    }

    /// Predicted compute instructions of each block of `f` (the base is not in any block).
    pub fn predict_blocks(&self, f: &IrFunction) -> Vec<f64> {
        f.blocks
            .iter()
            .map(|b| {
                b.words
                    .iter()
                    .map(|w| self.words.get(w).copied().unwrap_or(self.unknown))
                    .sum()
            })
            .collect()
    }

    /// Predicted compute instructions of `f` (never negative).
    pub fn predict(&self, f: &IrFunction) -> f64 {
        (self.base + self.predict_blocks(f).iter().sum::<f64>()).max(0.0)
    }

    /// Read a saved model, checking its format tag.
    pub fn from_json(text: &str) -> Result<WordCostModel, String> {
        let m: WordCostModel = serde_json::from_str(text).map_err(|e| e.to_string())?;
        if m.format != FORMAT {
            return Err(format!("format `{}`, expected `{FORMAT}`", m.format));
        }
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nfc_core::insight::{InstrClass, IrBlock, ProxyCounts};
    use rand::{Rng, SeedableRng};

    /// Functions whose proxy count is exactly 3 + Σ cost(word).
    fn functions(n: usize, seed: u64) -> Vec<IrFunction> {
        let costs = [("add", 1u32), ("load", 2), ("call", 5), ("br", 1)];
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        (0..n)
            .map(|i| {
                let mut blocks = vec![];
                let mut total = 3;
                for b in 0..rng.gen_range(1..4) {
                    let words: Vec<String> = (0..rng.gen_range(1..12))
                        .map(|_| {
                            let (w, c) = costs[rng.gen_range(0..costs.len())];
                            total += c;
                            w.to_string()
                        })
                        .collect();
                    blocks.push(IrBlock {
                        name: format!("b{b}"),
                        classes: vec![InstrClass::Compute; words.len()],
                        words,
                        memory_words: 0,
                    });
                }
                IrFunction {
                    name: format!("f{i}"),
                    framework: false,
                    blocks,
                    proxy: Some(ProxyCounts {
                        instructions: total,
                        memory: 0,
                    }),
                    callees: vec![],
                    signals: Default::default(),
                    inlined_blocks: vec![],
                    behaviour: None,
                }
            })
            .collect()
    }

    #[test]
    fn recovers_word_costs_and_blocks_add_up() {
        let tr = functions(200, 1);
        let va = functions(50, 2);
        let m = WordCostModel::fit(
            &tr.iter().collect::<Vec<_>>(),
            &va.iter().collect::<Vec<_>>(),
        )
        .unwrap();
        assert!(m.val_wmape < 0.02, "{}", m.val_wmape);
        assert!((m.words["call"] - 5.0).abs() < 0.2, "{:?}", m.words);
        assert!((m.words["load"] - 2.0).abs() < 0.2, "{:?}", m.words);
        let f = &va[0];
        let blocks: f64 = m.predict_blocks(f).iter().sum();
        assert!((m.base + blocks - m.predict(f)).abs() < 1e-9);
        // Saved and read back, the same predictions.
        let back = WordCostModel::from_json(&serde_json::to_string(&m).unwrap()).unwrap();
        assert_eq!(back.predict(f), m.predict(f));
        assert!(WordCostModel::from_json("{\"format\":\"x\"}").is_err());
    }
}
