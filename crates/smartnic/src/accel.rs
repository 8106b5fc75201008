//! Accelerator identification (Clara §4.1): which functions of an NF are a
//! CRC or a longest-prefix match, so a port can use the NIC's CRC unit or
//! its LPM engine.
//!
//! Features per function, from the compacted IR words of `nfc-reducer`'s
//! insight IR: (1) sequential patterns — contiguous instruction
//! subsequences (2- and 3-grams per block, with `-O0` stack traffic
//! removed) mined from the training implementations and kept when their
//! *support* in a class and their *confidence* for it are both high
//! (Clara's SPE features); (2) hand features — xor and shift density and
//! xor+shift loops for CRC (table-driven or bitwise), rotations and
//! multiplications for plain hashes, 16-bit folding for Internet checksums,
//! pointer chasing and bit extraction in bounded loops for LPM. A linear
//! SVM per accelerator (one vs rest, hinge loss with L2, Pegasos SGD,
//! seeded) scores each function; the label is the best positive score or
//! `none`.

use nfc_core::insight::{AccelSignals, Behaviour, InstrClass, IrFunction};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// What a function implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AccelKind {
    Crc,
    Lpm,
    None,
}

impl AccelKind {
    pub const ALL: [AccelKind; 3] = [AccelKind::Crc, AccelKind::Lpm, AccelKind::None];
    pub fn name(self) -> &'static str {
        match self {
            AccelKind::Crc => "crc",
            AccelKind::Lpm => "lpm",
            AccelKind::None => "none",
        }
    }
}

/// One labelled function.
#[derive(Debug, Clone)]
pub struct Labelled<'a> {
    pub function: &'a IrFunction,
    pub kind: AccelKind,
}

/// The abstract token of a word for pattern mining; `None` for `-O0`
/// artefacts (stack loads and stores, allocas, unconditional branches).
fn token(word: &str, class: InstrClass) -> Option<String> {
    if class == InstrClass::StackMemory {
        return None;
    }
    let mut it = word.split_whitespace();
    let op = it.next()?;
    match op {
        "alloca" => None,
        "br" if word.ends_with("uncond") => None,
        "icmp" => Some(format!("icmp.{}", it.next().unwrap_or(""))),
        "load" | "store" => Some(format!("{op}.{}", word.rsplit(' ').next().unwrap_or(""))),
        "call" => Some(format!("call.{}", it.next().unwrap_or(""))),
        "getelementptr" => {
            let var = word.split_whitespace().skip(2).any(|t| t == "var");
            Some(if var { "gep.var".into() } else { "gep".into() })
        }
        _ => Some(op.to_string()),
    }
}

/// The token sequence of each block.
fn block_tokens(f: &IrFunction) -> Vec<Vec<String>> {
    f.accel_blocks()
        .iter()
        .map(|b| {
            b.words
                .iter()
                .zip(&b.classes)
                .filter_map(|(w, c)| token(w, *c))
                .collect()
        })
        .collect()
}

fn ngrams(f: &IrFunction) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for toks in block_tokens(f) {
        for n in 2..=3 {
            for w in toks.windows(n) {
                out.insert(w.join(" "));
            }
        }
    }
    out
}

/// Names of the hand features, in vector order.
pub const HAND_FEATURES: [&str; 30] = [
    "xor_density",
    "shift_density",
    "xor_shift_loop",
    "xor_table_lookup",
    "mul_density",
    "rotate",
    "fold16",
    "pointer_chase_loop",
    "bit_extract_loop",
    "mask_compare",
    "cond_branches",
    "log_length",
    "xor_const_shift_loop",
    "xor_var_only",
    "crc_poly_shift_loop",
    "crc_table_step",
    "rotate_const",
    "mul_large_const",
    "fold16_const",
    "halving_loop",
    "prefix_mask",
    "walk_loop",
    "arx_mix",
    "best_update_loop",
    "two_level_lookup",
    "keyed_walk_loop",
    "exact_match_exit_loop",
    "shorten_retry_loop",
    "first_match_exit_walk",
    "covering_stack_walk",
];

/// The value-level signals (constants and data flow from `insight_ir`)
/// among [`HAND_FEATURES`], with the function's size: what a CRC, an LPM
/// and a hash *do*, as opposed to token densities and windows.
pub const SIGNAL_FEATURES: [&str; 17] = [
    "log_length",
    "crc_poly_shift_loop",
    "crc_table_step",
    "rotate_const",
    "mul_large_const",
    "fold16_const",
    "halving_loop",
    "prefix_mask",
    "walk_loop",
    "arx_mix",
    "best_update_loop",
    "two_level_lookup",
    "keyed_walk_loop",
    "exact_match_exit_loop",
    "shorten_retry_loop",
    "first_match_exit_walk",
    "covering_stack_walk",
];

/// A candidate feature set: mined patterns or not, and which hand features.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FeatureSet {
    /// Mined patterns and every hand feature.
    All,
    /// Mined patterns and the value-level signals.
    PatternsSignals,
    /// The value-level signals alone.
    Signals,
}

impl FeatureSet {
    pub const ALL: [FeatureSet; 3] = [
        FeatureSet::All,
        FeatureSet::PatternsSignals,
        FeatureSet::Signals,
    ];
    pub fn name(self) -> &'static str {
        match self {
            FeatureSet::All => "all",
            FeatureSet::PatternsSignals => "patterns+signals",
            FeatureSet::Signals => "signals",
        }
    }
    fn patterns(self) -> bool {
        self != FeatureSet::Signals
    }
    fn hand(self) -> Vec<&'static str> {
        match self {
            FeatureSet::All => HAND_FEATURES.to_vec(),
            _ => SIGNAL_FEATURES.to_vec(),
        }
    }
}

fn hand_features(f: &IrFunction) -> Vec<f64> {
    let sig = &f.signals;
    let blocks = block_tokens(f);
    let all: Vec<&String> = blocks.iter().flatten().collect();
    let n = all.len().max(1) as f64;
    let count = |p: &dyn Fn(&str) -> bool| all.iter().filter(|t| p(t)).count() as f64;
    let is_shift = |t: &str| t == "shl" || t == "lshr" || t == "ashr";
    let xor = count(&|t| t == "xor");
    let shifts = count(&|t| is_shift(t));
    let muls = count(&|t| t == "mul");
    let has = |b: &Vec<String>, p: &dyn Fn(&str) -> bool| b.iter().any(|t| p(t));
    let loopish =
        |b: &Vec<String>| has(b, &|t| t == "br") && b.iter().any(|t| t.starts_with("icmp"));
    let mut xor_shift_loop = 0.0;
    let mut xor_table = 0.0;
    let mut rotate = 0.0;
    let mut fold16 = 0.0;
    let mut chase = 0.0;
    let mut bitx = 0.0;
    let mut maskcmp = 0.0;
    // A loop body is spread over blocks at -O0: look at each block with its successor in layout.
    for (i, b) in blocks.iter().enumerate() {
        let mut win: Vec<String> = b.clone();
        if let Some(next) = blocks.get(i + 1) {
            win.extend(next.iter().cloned());
        }
        let bx = has(&win, &|t| t == "xor");
        let bs = has(&win, &|t| is_shift(t));
        if bx && bs && (has(&win, &|t| t == "br") || loopish(b)) {
            xor_shift_loop = 1.0;
        }
        // Table-driven CRC: the table index comes from an xor with the data.
        for w in b.windows(4) {
            if w[0] == "xor"
                && w[1..].iter().any(|t| t == "gep.var")
                && w[1..]
                    .iter()
                    .any(|t| t == "and" || t == "lshr" || t == "zext")
            {
                xor_table = 1.0;
            }
        }
        if has(b, &|t| t == "shl") && has(b, &|t| t == "lshr") && has(b, &|t| t == "or") {
            rotate = 1.0;
        }
        if has(b, &|t| t == "lshr") && has(b, &|t| t == "and") && has(b, &|t| t == "add") && !bx {
            fold16 = 1.0;
        }
        if has(&win, &|t| t == "load.ptr" || t == "load.state")
            && has(&win, &|t| t == "gep" || t == "gep.var")
            && has(&win, &|t| t.starts_with("icmp"))
        {
            let ptr_loads = win.iter().filter(|t| *t == "load.ptr").count();
            if ptr_loads >= 2 {
                chase = 1.0;
            }
        }
        for w in b.windows(2) {
            if is_shift(&w[0]) && w[1] == "and" {
                bitx = 1.0;
            }
            if w[0] == "and" && (w[1] == "icmp.eq" || w[1] == "icmp.ne") {
                maskcmp = 1.0;
            }
        }
    }
    // On the words themselves (operands kept as types or `const`): a CRC xors
    // its polynomial (a constant) or a table entry inside a shifting loop; a
    // Toeplitz or multiplicative hash xors variables only.
    let is_xor_const = |w: &str| w.starts_with("xor ") && w.ends_with(" const");
    let mut xor_const_loop = 0.0;
    let mut any_xor_const = false;
    let fblocks = f.accel_blocks();
    for (i, b) in fblocks.iter().enumerate() {
        let next = fblocks.get(i + 1);
        let words = b
            .words
            .iter()
            .chain(next.into_iter().flat_map(|n| n.words.iter()));
        let (mut xc, mut sh, mut br) = (false, false, false);
        for w in words {
            xc |= is_xor_const(w);
            sh |= w.starts_with("shl ") || w.starts_with("lshr ") || w.starts_with("ashr ");
            br |= w.starts_with("br ");
        }
        any_xor_const |= b.words.iter().any(|w| is_xor_const(w));
        if xc && sh && br {
            xor_const_loop = 1.0;
        }
    }
    let xor_var_only = if xor > 0.0 && !any_xor_const {
        1.0
    } else {
        0.0
    };
    vec![
        xor / n,
        shifts / n,
        xor_shift_loop,
        xor_table,
        muls / n,
        rotate,
        fold16,
        chase,
        bitx,
        maskcmp,
        (count(&|t| t == "br") / n).min(1.0),
        ((all.len() as f64) + 1.0).ln() / 6.0,
        xor_const_loop,
        xor_var_only,
        // Value-level signals (constants and data flow, from `insight_ir`).
        // The polynomial reduction: stepwise, or written out as the CRC's
        // xor equations (the same evidence, another spelling).
        flag(sig.xor_poly_in_loop > 0 || sig.xor_equations > 0),
        // The table step: the data in the index, or xored in after the
        // lookup of the register's own bits.
        flag(
            sig.table_xor_index > 0
                || sig.table_register_step > 0
                || sig.table_whole_step > 0
                || sig.power_xor_step > 0,
        ),
        flag(sig.rotate_const > 0),
        flag(sig.mul_large_const > 0),
        flag(sig.fold16 > 0),
        flag(sig.halving_in_loop > 0),
        flag(sig.prefix_mask > 0),
        flag(sig.walk_in_loop > 0),
        flag(sig.arx_mix > 0),
        flag(sig.best_update_in_loop > 0),
        flag(sig.two_level_lookup > 0),
        flag(sig.keyed_walk_in_loop > 0),
        flag(sig.exact_match_exit_in_loop > 0),
        flag(sig.shorten_retry_in_loop > 0),
        flag(sig.first_match_exit_in_walk > 0),
        flag(sig.covering_stack_in_walk > 0),
    ]
}

/// Whether a function's walk can return a *longest* match: an LPM returns
/// the last of the matches its descent sees — a best-so-far kept while it
/// walks, the covering nodes it stacked, the longest length tried first
/// (shorten and retry), the next level of a multi-level table. A walk that
/// hands out a value at its first match ([`AccelSignals::first_match_exit_in_walk`])
/// and remembers none of these returns the shortest covering entry or an
/// exact one. A masked-compare scan that returns at its first match is
/// read the same way: that its first match is the longest would take an
/// order the function does not establish, so it is not claimed (a
/// first-match access list is the look-alike, and replacing one by an LPM
/// would change what it does).
pub fn walk_cannot_be_longest(sig: &AccelSignals) -> bool {
    // A scan over a constant table whose prefix lengths never increase in
    // table order returns the longest match at its first one: the order
    // is proven from the unit (`ordered_table_scan`).
    sig.first_match_exit_in_walk > 0 && keeps_no_longer_match(sig)
}

/// Whether a search keeps nothing that could make its answer the longest
/// of several matches: no best-so-far, no stack of covering entries, no
/// shortened retry, no next level, no table ordered longest first.
fn keeps_no_longer_match(sig: &AccelSignals) -> bool {
    sig.ordered_table_scan == 0
        && sig.best_update_in_loop == 0
        && sig.covering_stack_in_walk == 0
        && sig.shorten_retry_in_loop == 0
        && sig.two_level_lookup == 0
}

/// Whether a scan is a longest-prefix match by an order proven from the
/// unit: it returns at its first masked match
/// ([`AccelSignals::first_match_exit_in_walk`]) and its table is a
/// constant whose prefix lengths never increase in table order
/// ([`AccelSignals::ordered_table_scan`]), so the first match is the
/// longest. The definition of an LPM is then met by construction, as a
/// proven CRC is by the behavioural test.
pub fn scan_is_longest(sig: &AccelSignals) -> bool {
    sig.first_match_exit_in_walk > 0 && sig.ordered_table_scan > 0
}

/// Whether a function is an exact binary search
/// ([`AccelSignals::exact_bisection_exit`]): it halves its range, hands a
/// value out only when the probe equals the key and constants when the
/// range empties, and remembers nothing across probes (no best-so-far,
/// stack, shortened retry or next level). A longest-prefix search over
/// sorted ranges returns the range it stopped in; an exact search has
/// none to return, so it is no longest-prefix match.
pub fn search_is_exact(sig: &AccelSignals) -> bool {
    sig.exact_bisection_exit > 0 && keeps_no_longer_match(sig)
}

/// Whether a function's polynomial steps divide no data: its only one-bit
/// steps run on state it keeps ([`AccelSignals::state_only_step`], a
/// generator's twist) and nothing else reads as a CRC step — no step that
/// data enters, no table step, no xor equations. A CRC consumes a message;
/// a generator that consumes none is no CRC, however its step is spelt.
pub fn steps_consume_no_data(sig: &AccelSignals) -> bool {
    sig.state_only_step > 0
        && sig.xor_poly_in_loop == 0
        && sig.table_xor_index == 0
        && sig.table_register_step == 0
        && sig.table_whole_step == 0
        && sig.power_xor_step == 0
        && sig.xor_equations == 0
}

fn flag(b: bool) -> f64 {
    if b {
        1.0
    } else {
        0.0
    }
}

/// A mined pattern with its statistics on the training set.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Pattern {
    pub tokens: String,
    pub class: AccelKind,
    pub support: f64,
    pub confidence: f64,
}

/// Mining thresholds.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct MiningConfig {
    pub min_support: f64,
    pub min_confidence: f64,
    pub per_class: usize,
}

impl Default for MiningConfig {
    fn default() -> Self {
        MiningConfig {
            min_support: 0.3,
            min_confidence: 0.6,
            per_class: 25,
        }
    }
}

/// Frequent, class-confident instruction subsequences.
pub fn mine_patterns(train: &[Labelled<'_>], cfg: &MiningConfig) -> Vec<Pattern> {
    let sets: Vec<(BTreeSet<String>, AccelKind)> =
        train.iter().map(|l| (ngrams(l.function), l.kind)).collect();
    let mut out = vec![];
    for class in [AccelKind::Crc, AccelKind::Lpm] {
        let n_class = sets.iter().filter(|(_, k)| *k == class).count();
        if n_class == 0 {
            continue;
        }
        let mut in_class: BTreeMap<&String, usize> = BTreeMap::new();
        let mut anywhere: BTreeMap<&String, usize> = BTreeMap::new();
        for (s, k) in &sets {
            for g in s {
                *anywhere.entry(g).or_default() += 1;
                if *k == class {
                    *in_class.entry(g).or_default() += 1;
                }
            }
        }
        let mut cands: Vec<Pattern> = in_class
            .iter()
            .map(|(g, c)| Pattern {
                tokens: (*g).clone(),
                class,
                support: *c as f64 / n_class as f64,
                confidence: *c as f64 / anywhere[g] as f64,
            })
            .filter(|p| p.support >= cfg.min_support && p.confidence >= cfg.min_confidence)
            .collect();
        cands.sort_by(|a, b| {
            (b.support * b.confidence)
                .total_cmp(&(a.support * a.confidence))
                .then_with(|| a.tokens.cmp(&b.tokens))
        });
        cands.truncate(cfg.per_class);
        out.extend(cands);
    }
    out
}

/// A trained classifier (serialisable: patterns, weights, feature names).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AccelModel {
    pub patterns: Vec<Pattern>,
    /// The hand features used, a subset of [`HAND_FEATURES`] in its order.
    #[serde(default)]
    pub hand: Vec<String>,
    pub features: Vec<String>,
    /// Weights and bias of the one-vs-rest SVM of each accelerator.
    pub svm: BTreeMap<AccelKind, (Vec<f64>, f64)>,
    pub lambda: f64,
    pub seed: u64,
    /// The cross-validation that chose the feature set and λ ([`select`]),
    /// best first; empty when they were given.
    #[serde(default)]
    pub cv: Vec<CvScore>,
}

/// A function's label with its score.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Verdict {
    pub kind: AccelKind,
    /// Logistic of the winning margin (0.5 at the decision boundary).
    pub confidence: f64,
}

fn featurise(f: &IrFunction, patterns: &[Pattern], hand: &[String]) -> Vec<f64> {
    let grams = ngrams(f);
    let mut x: Vec<f64> = patterns
        .iter()
        .map(|p| if grams.contains(&p.tokens) { 1.0 } else { 0.0 })
        .collect();
    let all = hand_features(f);
    x.extend(
        hand.iter()
            .filter_map(|h| HAND_FEATURES.iter().position(|n| n == h))
            .map(|i| all[i]),
    );
    x
}

fn feature_names(patterns: &[Pattern], hand: &[String]) -> Vec<String> {
    let mut features: Vec<String> = patterns
        .iter()
        .map(|p| format!("seq[{}]: {}", p.class.name(), p.tokens))
        .collect();
    features.extend(hand.iter().cloned());
    features
}

/// Pegasos: hinge loss with L2, `epochs` passes, seeded. The bias is the
/// weight of a constant feature and is regularised with the rest: an
/// unregularised bias takes the first steps of size 1/λ unchecked and can
/// end far from zero, labelling everything one way.
fn pegasos(x: &[Vec<f64>], y: &[f64], lambda: f64, epochs: usize, seed: u64) -> (Vec<f64>, f64) {
    let d = x.first().map_or(0, Vec::len);
    let mut w = vec![0.0; d + 1];
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut order: Vec<usize> = (0..x.len()).collect();
    // Balance the classes: each sample's step is weighted by the inverse class frequency.
    let pos = y.iter().filter(|v| **v > 0.0).count().max(1) as f64;
    let neg = y.iter().filter(|v| **v < 0.0).count().max(1) as f64;
    let total = pos + neg;
    let mut t = 1.0;
    for _ in 0..epochs {
        order.shuffle(&mut rng);
        for &i in &order {
            let eta = 1.0 / (lambda * t);
            t += 1.0;
            let weight = if y[i] > 0.0 {
                total / (2.0 * pos)
            } else {
                total / (2.0 * neg)
            };
            let xi = x[i].iter().chain(std::iter::once(&1.0));
            let margin = y[i] * xi.clone().zip(&w).map(|(a, b)| a * b).sum::<f64>();
            for wj in w.iter_mut() {
                *wj *= 1.0 - eta * lambda;
            }
            if margin < 1.0 {
                for (wj, xj) in w.iter_mut().zip(xi) {
                    *wj += eta * weight * y[i] * xj;
                }
            }
        }
    }
    let b = w.pop().unwrap_or(0.0);
    (w, b)
}

impl AccelModel {
    pub fn train(
        train: &[Labelled<'_>],
        mining: &MiningConfig,
        set: FeatureSet,
        lambda: f64,
        seed: u64,
    ) -> AccelModel {
        let patterns = if set.patterns() {
            mine_patterns(train, mining)
        } else {
            vec![]
        };
        let hand: Vec<String> = set.hand().into_iter().map(String::from).collect();
        let x: Vec<Vec<f64>> = train
            .iter()
            .map(|l| featurise(l.function, &patterns, &hand))
            .collect();
        let mut svm = BTreeMap::new();
        for class in [AccelKind::Crc, AccelKind::Lpm] {
            let y: Vec<f64> = train
                .iter()
                .map(|l| if l.kind == class { 1.0 } else { -1.0 })
                .collect();
            svm.insert(class, pegasos(&x, &y, lambda, 300, seed));
        }
        AccelModel {
            features: feature_names(&patterns, &hand),
            patterns,
            hand,
            svm,
            lambda,
            seed,
            cv: vec![],
        }
    }

    /// Whether a saved model's feature list is the one this code computes
    /// (a model saved before a hand feature was added or renamed would
    /// silently mis-weight every function).
    pub fn check(&self) -> Result<(), String> {
        if let Some(h) = self
            .hand
            .iter()
            .find(|h| !HAND_FEATURES.contains(&h.as_str()))
        {
            return Err(format!(
                "the model uses the hand feature `{h}`, which this version does not compute; retrain it"
            ));
        }
        let want = feature_names(&self.patterns, &self.hand);
        if want != self.features {
            return Err(format!(
                "the model's {} features are not the {} this version computes; retrain it",
                self.features.len(),
                want.len()
            ));
        }
        for (k, (w, _)) in &self.svm {
            if w.len() != want.len() {
                return Err(format!(
                    "the {} SVM has {} weights for {} features",
                    k.name(),
                    w.len(),
                    want.len()
                ));
            }
        }
        Ok(())
    }

    /// The feature vector of a function, in [`AccelModel::features`] order.
    pub fn features_of(&self, f: &IrFunction) -> Vec<f64> {
        featurise(f, &self.patterns, &self.hand)
    }

    /// The decision value of each accelerator's SVM.
    pub fn scores(&self, f: &IrFunction) -> BTreeMap<AccelKind, f64> {
        let x = featurise(f, &self.patterns, &self.hand);
        self.svm
            .iter()
            .map(|(k, (w, b))| (*k, x.iter().zip(w).map(|(a, b)| a * b).sum::<f64>() + b))
            .collect()
    }

    pub fn classify(&self, f: &IrFunction) -> Verdict {
        // A CRC proven by running the function is a CRC whatever its
        // spelling: the behavioural test checks the definition itself
        // (`nfc_reducer::insight_exec`), so it overrides the syntactic
        // model. Its other outcomes prove nothing either way (a CRC check
        // returns a flag and is not affine; a role may be missed), and the
        // model decides as before.
        if matches!(f.behaviour, Some(Behaviour::Crc { .. })) {
            return Verdict {
                kind: AccelKind::Crc,
                confidence: 1.0,
            };
        }
        if scan_is_longest(&f.signals) {
            return Verdict {
                kind: AccelKind::Lpm,
                confidence: 1.0,
            };
        }
        let mut scores = self.scores(f);
        // The hand rule where the SVM and the walk's dataflow disagree: a
        // walk that returns at its first match and remembers no earlier
        // one is no longest-prefix match, whatever else it looks like
        // (`walk_cannot_be_longest`): the LPM score cannot win.
        if walk_cannot_be_longest(&f.signals) {
            scores.remove(&AccelKind::Lpm);
        }
        // And where it is an exact binary search (`search_is_exact`).
        if search_is_exact(&f.signals) {
            scores.remove(&AccelKind::Lpm);
        }
        // And where its steps divide no data (`steps_consume_no_data`):
        // the CRC score cannot win.
        if steps_consume_no_data(&f.signals) {
            scores.remove(&AccelKind::Crc);
        }
        let best = scores
            .iter()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .map(|(k, v)| (*k, *v));
        match best {
            Some((k, s)) if s > 0.0 => Verdict {
                kind: k,
                confidence: 1.0 / (1.0 + (-2.0 * s).exp()),
            },
            Some((_, s)) => Verdict {
                kind: AccelKind::None,
                confidence: 1.0 / (1.0 + (2.0 * s).exp()),
            },
            None => Verdict {
                kind: AccelKind::None,
                confidence: 0.5,
            },
        }
    }
}

/// Confusion table and the accelerator-detection precision and recall.
#[derive(Debug, Clone, Serialize)]
pub struct AccelEvaluation {
    /// `confusion[actual][predicted]` counts, in `AccelKind::ALL` order.
    pub confusion: [[usize; 3]; 3],
    /// Of the functions flagged CRC or LPM, the share with that label.
    pub precision: f64,
    /// Of the CRC and LPM functions, the share flagged with their label.
    pub recall: f64,
    /// Every held-out function: (name, actual, predicted, confidence).
    pub rows: Vec<(String, AccelKind, AccelKind, f64)>,
}

pub fn evaluate(model: &AccelModel, test: &[(String, Labelled<'_>)]) -> AccelEvaluation {
    let idx = |k: AccelKind| AccelKind::ALL.iter().position(|x| *x == k).unwrap_or(2);
    let mut confusion = [[0usize; 3]; 3];
    let mut rows = vec![];
    let (mut tp, mut flagged, mut positives) = (0usize, 0usize, 0usize);
    for (name, l) in test {
        let v = model.classify(l.function);
        confusion[idx(l.kind)][idx(v.kind)] += 1;
        if v.kind != AccelKind::None {
            flagged += 1;
            if v.kind == l.kind {
                tp += 1;
            }
        }
        if l.kind != AccelKind::None {
            positives += 1;
        }
        rows.push((name.clone(), l.kind, v.kind, v.confidence));
    }
    AccelEvaluation {
        confusion,
        precision: if flagged > 0 {
            tp as f64 / flagged as f64
        } else {
            f64::NAN
        },
        recall: if positives > 0 {
            tp as f64 / positives as f64
        } else {
            f64::NAN
        },
        rows,
    }
}

/// One candidate of the model selection with its cross-validated score.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CvScore {
    pub set: FeatureSet,
    pub lambda: f64,
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
}

/// The λ grid of [`select`].
pub const LAMBDAS: [f64; 5] = [0.001, 0.003, 0.01, 0.03, 0.1];

/// Model selection by grouped k-fold cross-validation **within the
/// training set** (the held-out implementations are never seen): `group`
/// names the file (or synthesised program) a function comes from, and
/// every function of a group falls in the same fold (groups are dealt to
/// folds round-robin per class in sorted order, so each fold has CRCs,
/// LPMs and negatives). Patterns are mined again on each fold's training
/// part. Every (feature set, λ) of the grid is scored by the pooled
/// precision, recall and F1 over the folds; the best F1 wins (ties: the
/// higher precision, then the larger λ). Returns every score, best first.
pub fn select(
    train: &[(String, Labelled<'_>)],
    folds: usize,
    mining: &MiningConfig,
    seed: u64,
) -> Vec<CvScore> {
    let folds = folds.max(2);
    let mut groups: BTreeMap<(AccelKind, &str), ()> = BTreeMap::new();
    for (g, l) in train {
        groups.insert((l.kind, g.as_str()), ());
    }
    let mut fold_of: BTreeMap<&str, usize> = BTreeMap::new();
    for class in AccelKind::ALL {
        for (i, (_, g)) in groups.keys().filter(|(k, _)| *k == class).enumerate() {
            fold_of.entry(g).or_insert(i % folds);
        }
    }
    let mut out = vec![];
    for set in FeatureSet::ALL {
        for lambda in LAMBDAS {
            let (mut tp, mut flagged, mut positives) = (0usize, 0usize, 0usize);
            for k in 0..folds {
                let (fit, val): (Vec<_>, Vec<_>) =
                    train.iter().partition(|(g, _)| fold_of[g.as_str()] != k);
                let fit: Vec<Labelled<'_>> = fit.into_iter().map(|(_, l)| l.clone()).collect();
                let m = AccelModel::train(&fit, mining, set, lambda, seed);
                for (_, l) in val {
                    let v = m.classify(l.function);
                    if v.kind != AccelKind::None {
                        flagged += 1;
                        tp += usize::from(v.kind == l.kind);
                    }
                    positives += usize::from(l.kind != AccelKind::None);
                }
            }
            let precision = if flagged > 0 {
                tp as f64 / flagged as f64
            } else {
                0.0
            };
            let recall = if positives > 0 {
                tp as f64 / positives as f64
            } else {
                0.0
            };
            let f1 = if precision + recall > 0.0 {
                2.0 * precision * recall / (precision + recall)
            } else {
                0.0
            };
            out.push(CvScore {
                set,
                lambda,
                precision,
                recall,
                f1,
            });
        }
    }
    out.sort_by(|a, b| {
        b.f1.total_cmp(&a.f1)
            .then(b.precision.total_cmp(&a.precision))
            .then(b.lambda.total_cmp(&a.lambda))
    });
    out
}
