//! Clara's compute-instruction model (SOSP'21 §3.2) and its baselines, in
//! tch: an LSTM over the one-hot compacted IR words of each basic block, a
//! fully connected head giving each word's contribution, summed per block
//! (the per-block prediction) and per function; a DNN on the function's bag
//! of words; a 1-D CNN over the function's word sequence (sum-pooled, so it
//! can count); and gradient-boosted trees (forust-ml) on the bag of words.
//!
//! Ground truth is the proxy NIC compiler's machine instructions per
//! function (`nfc_core::insight::ProxyCounts::compute`): llc's output does
//! not map back to IR blocks reliably, so blocks are predicted but trained
//! through their per-function sum. Every model trains on the same
//! synthesised programs, picks its epoch on the same validation programs
//! (split by program, never by row), and is scored by WMAPE on NFs it never
//! saw. Training is seeded; a saved model predicts the same numbers every time.

use crate::PredictError;
use forust_ml::data::Matrix;
use forust_ml::gradientbooster::GradientBooster;
use forust_ml::objective::ObjectiveType;
use nfc_core::insight::{InstrClass, IrFunction, IrUnit};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use tch::nn::{self, Module, OptimizerConfig, RNN};
use tch::{Device, Kind, Tensor};

/// A batch's function predictions and, for per-block models, the block
/// predictions with each block's (function, block) index.
type Forward = (Tensor, Option<(Tensor, Vec<(usize, usize)>)>);

/// Words per LSTM chunk (longer blocks are cut into chunks whose outputs add up).
const CHUNK: usize = 48;
/// Words per function the CNN sees (longer functions are cut into windows).
const CNN_WINDOW: usize = 256;
/// Targets are divided by this inside the networks (outputs multiplied back).
const SCALE: f64 = 10.0;

/// The compacted vocabulary: index 0 pads, 1 is every word not seen in training.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Vocab {
    pub words: Vec<String>,
    #[serde(skip)]
    index: HashMap<String, i64>,
}

impl Vocab {
    pub fn build<'a>(functions: impl IntoIterator<Item = &'a IrFunction>) -> Vocab {
        let mut set = std::collections::BTreeSet::new();
        for f in functions {
            for w in f.words() {
                set.insert(w.to_string());
            }
        }
        let mut words = vec!["<pad>".to_string(), "<unk>".to_string()];
        words.extend(set);
        Vocab::from_words(words)
    }
    fn from_words(words: Vec<String>) -> Vocab {
        let index = words
            .iter()
            .enumerate()
            .map(|(i, w)| (w.clone(), i as i64))
            .collect();
        Vocab { words, index }
    }
    pub fn len(&self) -> usize {
        self.words.len()
    }
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }
    pub fn id(&self, w: &str) -> i64 {
        self.index.get(w).copied().unwrap_or(1)
    }
}

/// One function as the models see it.
#[derive(Debug, Clone)]
pub struct Sample {
    pub unit: String,
    pub function: String,
    /// Word ids per block.
    pub blocks: Vec<Vec<i64>>,
    /// Calls the function makes (to its NF's functions or the
    /// framework's): one of the function-structure features the LSTM's
    /// function term reads ([`function_features`]).
    pub calls: usize,
    /// Proxy compute instructions (0 when unmeasured).
    pub y: f64,
}

/// The functions of `units` a model trains on or is scored on: the NF's own
/// (not nf.h's), non-empty, measured by the proxy when `need_label`.
pub fn samples(units: &[IrUnit], vocab: &Vocab, need_label: bool) -> Vec<Sample> {
    let mut out = vec![];
    for u in units {
        for f in &u.functions {
            if f.framework || f.is_empty() || (need_label && f.proxy.is_none()) {
                continue;
            }
            out.push(Sample {
                unit: u.name.clone(),
                function: f.name.clone(),
                blocks: f
                    .blocks
                    .iter()
                    .map(|b| b.words.iter().map(|w| vocab.id(w)).collect())
                    .collect(),
                calls: f.count(InstrClass::Call) + f.count(InstrClass::FrameworkCall),
                y: f.proxy.map(|p| p.compute() as f64).unwrap_or(0.0),
            });
        }
    }
    out
}

/// Which network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Arch {
    Lstm,
    Dnn,
    Cnn,
}

impl Arch {
    pub fn name(self) -> &'static str {
        match self {
            Arch::Lstm => "LSTM",
            Arch::Dnn => "DNN",
            Arch::Cnn => "CNN",
        }
    }
}

/// Training settings (the same for every network).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TrainConfig {
    pub hidden: i64,
    pub epochs: usize,
    pub batch: usize,
    pub learning_rate: f64,
    pub seed: u64,
    /// Print each epoch's validation WMAPE on stderr.
    #[serde(default)]
    pub progress: bool,
    /// Early stopping: stop after this many epochs without a better
    /// validation WMAPE (0: run every epoch). The best epoch's weights are
    /// kept either way.
    #[serde(default)]
    pub patience: usize,
    /// Learning-rate schedule (reduce on plateau): after two epochs without
    /// a better validation WMAPE the rate is multiplied by this (1: constant).
    #[serde(default = "one")]
    pub lr_decay: f64,
    /// Hidden widths tried per network, the best chosen by validation WMAPE
    /// (empty: `hidden` alone). The GBDT gets its own grid
    /// ([`TreeParams::GRID`]) under the same rule when this is not empty.
    #[serde(default)]
    pub hidden_grid: Vec<i64>,
    /// The LSTM's architecture (the other networks ignore it).
    #[serde(default)]
    pub lstm: LstmShape,
    /// Clip the gradient's global L2 norm to this before each step (0: no clipping).
    #[serde(default)]
    pub clip: f64,
}

fn one() -> f64 {
    1.0
}

fn one_layer() -> i64 {
    1
}

/// The LSTM's architecture: what is specific to a sequence model (the
/// generic knobs — width, epochs, learning-rate schedule, clipping — are
/// [`TrainConfig`]'s and offered to every network alike).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LstmShape {
    /// One sequence per function (its blocks in order, a block-start bit
    /// appended to every one-hot word) instead of one per block (cut into
    /// chunks of [`CHUNK`] words): the LSTM sees the function's other blocks.
    #[serde(default)]
    pub function_sequence: bool,
    /// A second LSTM reads the sequence backwards (outputs concatenated).
    #[serde(default)]
    pub bidirectional: bool,
    /// Stacked LSTM layers.
    #[serde(default = "one_layer")]
    pub layers: i64,
    /// Width of a learned linear embedding of the one-hot word before the
    /// LSTM (0: the one-hot word goes in directly).
    #[serde(default)]
    pub embed: i64,
    /// Clara's readout: one FC head per block on the LSTM output at the
    /// block's last word (and, bidirectional, the backward output at its
    /// first) instead of an FC head on every word, summed.
    #[serde(default)]
    pub block_readout: bool,
    /// Percent of training words shown to the LSTM as `<unk>` (each word
    /// independently, every epoch anew; prediction is unchanged). The
    /// vocabulary is built from the training programs, so without this
    /// `<unk>` never occurs in training: its input weights stay at their
    /// random initialisation, and every word the training programs lack
    /// feeds the LSTM's state an arbitrary vector that it carries to the
    /// rest of the block (sixteenth session).
    #[serde(default)]
    pub unknown_pct: i64,
    /// A function-level term added to the sum of the blocks: a small FC
    /// network on the function's structure alone ([`function_features`]:
    /// size, blocks, calls — never which words), for cost that belongs to
    /// the whole function (prologue and epilogue, callee-saved spills under
    /// the whole function's register pressure), which a per-block sum
    /// cannot see (twentieth session). It is attributed to the entry block.
    #[serde(default)]
    pub function_term: bool,
}

impl Default for LstmShape {
    /// The first sessions' LSTM: per-block chunks, per-word heads.
    fn default() -> LstmShape {
        LstmShape {
            function_sequence: false,
            bidirectional: false,
            layers: 1,
            embed: 0,
            block_readout: false,
            unknown_pct: 0,
            function_term: false,
        }
    }
}

impl LstmShape {
    /// Parse a comma-separated list of `block` (the default shape),
    /// `function`, `bidir`, `layers<N>`, `embed<N>`, `block-readout`,
    /// `unk<N>` (percent of training words shown as `<unk>`, 1..=50),
    /// `function-term`.
    pub fn parse(spec: &str) -> Result<LstmShape, String> {
        let mut s = LstmShape::default();
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match part {
                "block" => {}
                "function" => s.function_sequence = true,
                "bidir" => s.bidirectional = true,
                "block-readout" => s.block_readout = true,
                "function-term" => s.function_term = true,
                p => {
                    let num = |pre: &str| -> Result<Option<i64>, String> {
                        match p.strip_prefix(pre) {
                            None => Ok(None),
                            Some(n) => match n.parse::<i64>() {
                                Ok(v) if (1..=1024).contains(&v) => Ok(Some(v)),
                                _ => Err(format!("`{p}`: expected {pre}<1..1024>")),
                            },
                        }
                    };
                    if let Some(n) = num("layers")? {
                        s.layers = n;
                    } else if let Some(n) = num("embed")? {
                        s.embed = n;
                    } else if let Some(n) = num("unk")? {
                        if n > 50 {
                            return Err(format!("`{p}`: expected unk<1..50>"));
                        }
                        s.unknown_pct = n;
                    } else {
                        return Err(format!(
                            "unknown LSTM option `{p}` (expected block, function, bidir, layers<N>, embed<N>, block-readout, unk<N>, function-term)"
                        ));
                    }
                }
            }
        }
        Ok(s)
    }
    /// The spec [`LstmShape::parse`] reads back.
    pub fn spec(&self) -> String {
        let mut parts = vec![if self.function_sequence {
            "function"
        } else {
            "block"
        }
        .to_string()];
        if self.bidirectional {
            parts.push("bidir".into());
        }
        if self.layers != 1 {
            parts.push(format!("layers{}", self.layers));
        }
        if self.embed > 0 {
            parts.push(format!("embed{}", self.embed));
        }
        if self.block_readout {
            parts.push("block-readout".into());
        }
        if self.unknown_pct > 0 {
            parts.push(format!("unk{}", self.unknown_pct));
        }
        if self.function_term {
            parts.push("function-term".into());
        }
        parts.join(",")
    }
}

impl TrainConfig {
    pub fn standard() -> TrainConfig {
        TrainConfig {
            hidden: 64,
            epochs: 30,
            batch: 32,
            learning_rate: 3e-3,
            seed: 19,
            progress: false,
            patience: 0,
            lr_decay: 1.0,
            hidden_grid: vec![],
            lstm: LstmShape::default(),
            clip: 0.0,
        }
    }
    /// The selection budget every network (and the GBDT) gets alike: up to
    /// 30 epochs with early stopping (patience 8, chosen for every network
    /// on the validation programs in the ninth session; 4 before) on the
    /// validation programs, the learning rate halved after every two
    /// epochs without improvement, hidden width from {32, 64} (the GBDT:
    /// depth, learning rate and trees from [`TreeParams::GRID`]), each
    /// choice by validation WMAPE. Width 128 was offered to every network
    /// at 80 programs and chosen by none (docs/smartnic.md). The LSTM is
    /// the per-block one without unknown-word training: `unk5` (sixteenth
    /// session) cost it 0.29 point on the validation programs against
    /// `block` (4.06% vs 3.77% at h32), and `block,bidir` was within the
    /// 0.1-point tie margin of `block`, so the simpler shape was chosen
    /// (nineteenth session, by a rule registered before the candidates ran).
    pub fn selected() -> TrainConfig {
        TrainConfig {
            epochs: 30,
            patience: 8,
            lr_decay: 0.5,
            hidden_grid: vec![32, 64],
            lstm: LstmShape::default(),
            ..TrainConfig::standard()
        }
    }
    pub fn tiny() -> TrainConfig {
        TrainConfig {
            hidden: 16,
            epochs: 6,
            batch: 16,
            learning_rate: 5e-3,
            seed: 19,
            progress: false,
            patience: 0,
            lr_decay: 1.0,
            hidden_grid: vec![],
            lstm: LstmShape::default(),
            clip: 0.0,
        }
    }
}

struct Net {
    arch: Arch,
    v: i64,
    shape: LstmShape,
    embed: Option<nn::Linear>,
    lstm: Option<nn::LSTM>,
    /// The backward LSTM (bidirectional): run on each row reversed, so
    /// padding never precedes a row's words (a batch-independent prediction).
    lstm_back: Option<nn::LSTM>,
    head1: nn::Linear,
    head2: nn::Linear,
    conv1: Option<nn::Conv1D>,
    conv2: Option<nn::Conv1D>,
    dnn_in: Option<nn::Linear>,
    /// The LSTM's function term ([`LstmShape::function_term`]).
    function_term: Option<(nn::Linear, nn::Linear)>,
}

/// Function-structure features the LSTM's function term reads: log(1+x)
/// of the function's IR instructions, blocks and calls. Only counts of
/// the function's structure, so the term cannot learn what a particular
/// word costs (that stays the LSTM's); the DNN's bag of words holds all
/// three as sums of its inputs (size: every entry; blocks: the
/// terminators'; calls: the call words'), so the term gives the LSTM
/// nothing the DNN lacks. Logarithms, so a function far longer than any
/// in training moves the term by little.
pub fn function_features(s: &Sample) -> [f32; FUNCTION_FEATURES] {
    let words: usize = s.blocks.iter().map(Vec::len).sum();
    [words, s.blocks.len(), s.calls].map(|x| (x as f32).ln_1p())
}

/// How many [`function_features`] there are.
pub const FUNCTION_FEATURES: usize = 3;
/// Hidden units of the function term.
const FUNCTION_TERM_HIDDEN: i64 = 16;

/// One run of consecutive words of a block inside an LSTM row: (function
/// in the batch, block of the function, row, first position, end position).
type Segment = (usize, usize, usize, usize, usize);

impl Net {
    fn new(vs: &nn::Path, arch: Arch, v: i64, h: i64, shape: LstmShape) -> Net {
        let dirs = if arch == Arch::Lstm && shape.bidirectional {
            2
        } else {
            1
        };
        let mut net = Net {
            arch,
            v,
            shape,
            embed: None,
            lstm: None,
            lstm_back: None,
            head1: nn::linear(vs / "head1", h * dirs, 32, Default::default()),
            head2: nn::linear(vs / "head2", 32, 1, Default::default()),
            conv1: None,
            conv2: None,
            dnn_in: None,
            function_term: None,
        };
        match arch {
            Arch::Lstm => {
                let mut input = v + i64::from(shape.function_sequence);
                if shape.embed > 0 {
                    net.embed = Some(nn::linear(
                        vs / "embed",
                        input,
                        shape.embed,
                        Default::default(),
                    ));
                    input = shape.embed;
                }
                let cfg = nn::RNNConfig {
                    batch_first: true,
                    num_layers: shape.layers.max(1),
                    ..Default::default()
                };
                net.lstm = Some(nn::lstm(vs / "lstm", input, h, cfg));
                if shape.bidirectional {
                    net.lstm_back = Some(nn::lstm(vs / "lstm_back", input, h, cfg));
                }
            }
            Arch::Cnn => {
                net.conv1 = Some(nn::conv1d(
                    vs / "conv1",
                    v,
                    h,
                    3,
                    nn::ConvConfig {
                        padding: 1,
                        ..Default::default()
                    },
                ));
                net.conv2 = Some(nn::conv1d(
                    vs / "conv2",
                    h,
                    h,
                    3,
                    nn::ConvConfig {
                        padding: 1,
                        ..Default::default()
                    },
                ));
            }
            Arch::Dnn => net.dnn_in = Some(nn::linear(vs / "dnn_in", v, h, Default::default())),
        }
        // Created last, so the rest of the network draws the same initial
        // weights from the seed as without the term: the two differ by the
        // term alone.
        if arch == Arch::Lstm && shape.function_term {
            net.function_term = Some((
                nn::linear(
                    vs / "fn_in",
                    FUNCTION_FEATURES as i64,
                    FUNCTION_TERM_HIDDEN,
                    Default::default(),
                ),
                nn::linear(vs / "fn_out", FUNCTION_TERM_HIDDEN, 1, Default::default()),
            ));
        }
        net
    }

    /// The LSTM's rows (word ids, and the block-start bit in function
    /// mode) and the segments that map positions back to blocks.
    fn lstm_rows(&self, batch: &[&Sample]) -> (Vec<Vec<i64>>, Vec<Vec<f32>>, Vec<Segment>) {
        let (mut rows, mut starts, mut segs) = (vec![], vec![], vec![]);
        for (fi, s) in batch.iter().enumerate() {
            if self.shape.function_sequence {
                let r = rows.len();
                let (mut ids, mut st) = (vec![], vec![]);
                for (bi, b) in s.blocks.iter().enumerate() {
                    if b.is_empty() {
                        continue;
                    }
                    segs.push((fi, bi, r, ids.len(), ids.len() + b.len()));
                    ids.extend_from_slice(b);
                    st.push(1.0);
                    st.extend(std::iter::repeat_n(0.0, b.len() - 1));
                }
                if !ids.is_empty() {
                    rows.push(ids);
                    starts.push(st);
                }
            } else {
                for (bi, b) in s.blocks.iter().enumerate() {
                    for c in b.chunks(CHUNK) {
                        segs.push((fi, bi, rows.len(), 0, c.len()));
                        rows.push(c.to_vec());
                        starts.push(vec![]);
                    }
                }
            }
        }
        (rows, starts, segs)
    }

    /// The LSTM's function predictions from its segment predictions (and
    /// their (function, block) owners): their sums, plus the function term
    /// when the shape has one — one more row per function, owned by its
    /// entry block (where the prologue is), so the blocks still add up to
    /// the function.
    fn add_up(
        &self,
        batch: &[&Sample],
        mut per_seg: Tensor,
        mut owners: Vec<(usize, usize)>,
    ) -> Forward {
        let nf = batch.len() as i64;
        if let Some((fn_in, fn_out)) = &self.function_term {
            let x: Vec<f32> = batch.iter().flat_map(|s| function_features(s)).collect();
            let x = Tensor::from_slice(&x).view([nf, FUNCTION_FEATURES as i64]);
            let term = fn_out.forward(&fn_in.forward(&x).relu()).squeeze_dim(-1);
            per_seg = Tensor::cat(&[per_seg, term], 0);
            owners.extend((0..batch.len()).map(|fi| (fi, 0)));
        }
        let owner: Vec<i64> = owners.iter().map(|o| o.0 as i64).collect();
        let f = Tensor::zeros([nf], (Kind::Float, Device::Cpu)).index_add(
            0,
            &Tensor::from_slice(&owner),
            &per_seg,
        );
        (f, Some((per_seg, owners)))
    }

    /// Per-block predictions (in block order of the batch) and the index of
    /// each block's function; function predictions are their sums.
    fn forward(&self, batch: &[&Sample]) -> Forward {
        let nf = batch.len() as i64;
        match self.arch {
            Arch::Lstm => {
                let (rows, starts, segs) = self.lstm_rows(batch);
                let owners: Vec<(usize, usize)> = segs.iter().map(|s| (s.0, s.1)).collect();
                if rows.is_empty() {
                    let none = Tensor::zeros([0], (Kind::Float, Device::Cpu));
                    return self.add_up(batch, none, owners);
                }
                let (ids, _, t) = pad(rows.iter().map(Vec::as_slice));
                let n = rows.len() as i64;
                let mut x = Tensor::from_slice(&ids)
                    .view([n, t as i64])
                    .onehot(self.v)
                    .to_kind(Kind::Float);
                if self.shape.function_sequence {
                    let (st, _, _) = pad_f(starts.iter().map(Vec::as_slice), t);
                    let st = Tensor::from_slice(&st).view([n, t as i64, 1]);
                    x = Tensor::cat(&[x, st], 2);
                }
                if let Some(e) = &self.embed {
                    x = e.forward(&x);
                }
                let lstm = self.lstm.as_ref().expect("lstm net");
                let (mut out, _) = lstm.seq(&x);
                if let Some(back) = &self.lstm_back {
                    // Position p of row r ↔ position len−1−p (padding stays put).
                    let mut rev: Vec<i64> = (0..(n as usize * t) as i64).collect();
                    for (r, row) in rows.iter().enumerate() {
                        for p in 0..row.len() {
                            rev[r * t + p] = (r * t + row.len() - 1 - p) as i64;
                        }
                    }
                    let rev = Tensor::from_slice(&rev);
                    let d = x.size()[2];
                    let xr = x
                        .reshape([n * t as i64, d])
                        .index_select(0, &rev)
                        .view([n, t as i64, d]);
                    let (ob, _) = back.seq(&xr);
                    let hb = ob.size()[2];
                    let ob = ob
                        .reshape([n * t as i64, hb])
                        .index_select(0, &rev)
                        .view([n, t as i64, hb]);
                    out = Tensor::cat(&[out, ob], 2);
                }
                let width = out.size()[2];
                let flat = out.reshape([n * t as i64, width]);
                let per_seg = if self.shape.block_readout {
                    let last: Vec<i64> = segs.iter().map(|s| (s.2 * t + s.4 - 1) as i64).collect();
                    let mut h = flat.index_select(0, &Tensor::from_slice(&last));
                    if self.shape.bidirectional {
                        let half = width / 2;
                        let first: Vec<i64> = segs.iter().map(|s| (s.2 * t + s.3) as i64).collect();
                        let b = flat.index_select(0, &Tensor::from_slice(&first));
                        h = Tensor::cat(&[h.narrow(1, 0, half), b.narrow(1, half, half)], 1);
                    }
                    self.head2
                        .forward(&self.head1.forward(&h).relu())
                        .squeeze_dim(-1)
                } else {
                    let per_word = self
                        .head2
                        .forward(&self.head1.forward(&flat).relu())
                        .squeeze_dim(-1);
                    // Every real position's segment (padding is dropped).
                    let (mut pos, mut seg) = (vec![], vec![]);
                    for (k, s) in segs.iter().enumerate() {
                        for p in s.3..s.4 {
                            pos.push((s.2 * t + p) as i64);
                            seg.push(k as i64);
                        }
                    }
                    Tensor::zeros([segs.len() as i64], (Kind::Float, Device::Cpu)).index_add(
                        0,
                        &Tensor::from_slice(&seg),
                        &per_word.index_select(0, &Tensor::from_slice(&pos)),
                    )
                };
                self.add_up(batch, per_seg, owners)
            }
            Arch::Cnn => {
                let mut rows: Vec<(usize, Vec<i64>)> = vec![];
                for (fi, s) in batch.iter().enumerate() {
                    let all: Vec<i64> = s.blocks.iter().flatten().copied().collect();
                    for c in all.chunks(CNN_WINDOW) {
                        rows.push((fi, c.to_vec()));
                    }
                }
                let (ids, mask, t) = pad(rows.iter().map(|r| r.1.as_slice()));
                let n = rows.len() as i64;
                // Padded positions must be what the convolution's own zero
                // padding is, or a row's last words would see the next
                // positions of a longer row of the batch: the one-hot of the
                // pad id is a real input vector, and conv1 turns zeros into
                // relu(bias). Masking both inputs makes a prediction the
                // same alone and in any batch (issue 19, fifteenth session).
                let m = Tensor::from_slice(&mask).view([n, 1, t as i64]);
                let x = Tensor::from_slice(&ids)
                    .view([n, t as i64])
                    .onehot(self.v)
                    .to_kind(Kind::Float)
                    .transpose(1, 2)
                    * &m;
                let h = self.conv1.as_ref().expect("cnn").forward(&x).relu() * &m;
                let m = m.view([n, t as i64]);
                let h = self
                    .conv2
                    .as_ref()
                    .expect("cnn")
                    .forward(&h)
                    .relu()
                    .transpose(1, 2);
                let per_word = self
                    .head2
                    .forward(&self.head1.forward(&h).relu())
                    .squeeze_dim(-1);
                let (f, _) = sum_by_owner(&per_word, &m, rows.iter().map(|r| r.0), nf);
                (f, None)
            }
            Arch::Dnn => {
                let x = bag(batch, self.v as usize);
                let x = Tensor::from_slice(&x).view([nf, self.v]) / 8.0;
                let h = self.dnn_in.as_ref().expect("dnn").forward(&x).relu();
                let f = self
                    .head2
                    .forward(&self.head1.forward(&h).relu())
                    .squeeze_dim(-1);
                (f, None)
            }
        }
    }
}

/// Seed offset of the unknown-word stream (ASCII "unk").
const UNK_STREAM: u64 = 0x756e6b;

/// `s` with each word replaced by `<unk>` (id 1) with probability `p`; the
/// label and block structure are kept.
fn with_unknown(s: &Sample, p: f64, rng: &mut ChaCha8Rng) -> Sample {
    use rand::Rng;
    Sample {
        blocks: s
            .blocks
            .iter()
            .map(|b| {
                b.iter()
                    .map(|id| if rng.gen_bool(p) { 1 } else { *id })
                    .collect()
            })
            .collect(),
        ..s.clone()
    }
}

/// `samples` with each word shown as `<unk>` with probability `pct`/100
/// (seeded): how a model's prediction moves when words it never saw take
/// the place of known ones (the label is kept; the length diagnosis).
pub fn with_unknown_share(samples: &[Sample], pct: f64, seed: u64) -> Vec<Sample> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ UNK_STREAM);
    samples
        .iter()
        .map(|s| with_unknown(s, pct / 100.0, &mut rng))
        .collect()
}

fn bag(batch: &[&Sample], v: usize) -> Vec<f32> {
    let mut x = vec![0f32; batch.len() * v];
    for (i, s) in batch.iter().enumerate() {
        for id in s.blocks.iter().flatten() {
            x[i * v + *id as usize] += 1.0;
        }
    }
    x
}

/// WMAPE: Σ|ŷ−y| / Σy.
pub fn wmape(pred: &[f64], y: &[f64]) -> f64 {
    let den: f64 = y.iter().sum();
    if den <= 0.0 {
        return f64::NAN;
    }
    pred.iter().zip(y).map(|(p, t)| (p - t).abs()).sum::<f64>() / den
}

/// A trained network with its vocabulary.
pub struct SeqModel {
    pub arch: Arch,
    pub vocab: Vocab,
    pub config: TrainConfig,
    /// The epoch chosen on the validation programs, and its validation WMAPE.
    pub best_epoch: usize,
    pub val_wmape: f64,
    /// Epochs actually run (fewer than `config.epochs` when early stopping ended training).
    pub epochs_run: usize,
    vs: nn::VarStore,
    net: Net,
}

#[derive(Serialize, Deserialize)]
struct SavedMeta {
    arch: Arch,
    vocab: Vec<String>,
    config: TrainConfig,
    best_epoch: usize,
    /// `None` for a model that was never validated (JSON writes NaN as
    /// `null`, which an `f64` field cannot read back).
    val_wmape: Option<f64>,
}

impl SeqModel {
    fn empty(arch: Arch, vocab: Vocab, config: TrainConfig) -> SeqModel {
        let _torch = crate::torch_training();
        let vs = nn::VarStore::new(Device::Cpu);
        let net = Net::new(
            &vs.root(),
            arch,
            vocab.len() as i64,
            config.hidden,
            config.lstm,
        );
        SeqModel {
            arch,
            vocab,
            config,
            best_epoch: 0,
            val_wmape: f64::NAN,
            epochs_run: 0,
            vs,
            net,
        }
    }

    /// Train on `train`, choosing the epoch by WMAPE on `val`.
    pub fn train(
        arch: Arch,
        vocab: Vocab,
        config: &TrainConfig,
        train: &[Sample],
        val: &[Sample],
    ) -> Result<SeqModel, PredictError> {
        if train.is_empty() {
            return Err(PredictError::TooFewSamples(0));
        }
        // One intra-op thread, as the counter MLP (`mlp::search_configs`):
        // the order of float reductions depends on the thread count, and a
        // different order moved the CNN's early stop by 15 epochs (1 vs 2
        // threads). Pinned, the same seed trains the same network anywhere.
        let _training = crate::torch_training();
        tch::set_num_threads(1);
        tch::manual_seed(config.seed as i64);
        let mut m = SeqModel::empty(arch, vocab, config.clone());
        let mut opt = nn::Adam::default()
            .build(&m.vs, config.learning_rate)
            .map_err(|e| PredictError::Model(format!("optimiser: {e}")))?;
        let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
        // Its own stream, so that the batch order is the same with and
        // without unknown-word training.
        let mut unk_rng = ChaCha8Rng::seed_from_u64(config.seed ^ UNK_STREAM);
        let unk_p = if arch == Arch::Lstm {
            config.lstm.unknown_pct as f64 / 100.0
        } else {
            0.0
        };
        let mut order: Vec<usize> = (0..train.len()).collect();
        let mut best: Option<(f64, usize, Vec<u8>)> = None;
        let val_y: Vec<f64> = val.iter().map(|s| s.y).collect();
        let mut lr = config.learning_rate;
        let mut since_best = 0usize;
        for epoch in 1..=config.epochs {
            m.epochs_run = epoch;
            order.shuffle(&mut rng);
            for chunk in order.chunks(config.batch.max(1)) {
                let masked: Vec<Sample>;
                let mut batch: Vec<&Sample> = chunk.iter().map(|i| &train[*i]).collect();
                if unk_p > 0.0 {
                    masked = batch
                        .iter()
                        .map(|s| with_unknown(s, unk_p, &mut unk_rng))
                        .collect();
                    batch = masked.iter().collect();
                }
                let y: Vec<f32> = batch.iter().map(|s| (s.y / SCALE) as f32).collect();
                let (pred, _) = m.net.forward(&batch);
                let loss = (pred - Tensor::from_slice(&y)).abs().mean(Kind::Float);
                if config.clip > 0.0 {
                    opt.backward_step_clip_norm(&loss, config.clip);
                } else {
                    opt.backward_step(&loss);
                }
            }
            let score = if val.is_empty() {
                0.0
            } else {
                wmape(&m.predict(val), &val_y)
            };
            if config.progress {
                eprintln!(
                    "{} h{} epoch {epoch}/{}: validation WMAPE {:.2}% (lr {lr:.2e})",
                    arch.name(),
                    config.hidden,
                    config.epochs,
                    100.0 * score
                );
            }
            if best.as_ref().is_none_or(|b| score < b.0) {
                let mut buf = vec![];
                m.vs.save_to_stream(&mut buf)
                    .map_err(|e| PredictError::Model(format!("saving weights: {e}")))?;
                best = Some((score, epoch, buf));
                since_best = 0;
            } else {
                since_best += 1;
                if config.patience > 0 && since_best >= config.patience {
                    break;
                }
                if config.lr_decay != 1.0 && since_best.is_multiple_of(2) {
                    lr *= config.lr_decay;
                    opt.set_lr(lr);
                }
            }
        }
        if let Some((score, epoch, buf)) = best {
            m.vs.load_from_stream(std::io::Cursor::new(buf))
                .map_err(|e| PredictError::Model(format!("restoring weights: {e}")))?;
            m.best_epoch = epoch;
            m.val_wmape = score;
        }
        Ok(m)
    }

    /// Train one network per width of `config.hidden_grid` (or
    /// `config.hidden` alone) and keep the one with the best validation
    /// WMAPE (ties: the smaller width); returns it with every candidate's
    /// (width, chosen epoch, validation WMAPE).
    pub fn train_selected(
        arch: Arch,
        vocab: Vocab,
        config: &TrainConfig,
        train: &[Sample],
        val: &[Sample],
    ) -> Result<(SeqModel, Vec<Candidate>), PredictError> {
        let grid = if config.hidden_grid.is_empty() {
            vec![config.hidden]
        } else {
            config.hidden_grid.clone()
        };
        let mut best: Option<SeqModel> = None;
        let mut tried = vec![];
        for h in grid {
            let c = TrainConfig {
                hidden: h,
                ..config.clone()
            };
            let t0 = std::time::Instant::now();
            let m = SeqModel::train(arch, vocab.clone(), &c, train, val)?;
            let mut params = format!("hidden {h}");
            if arch == Arch::Lstm && c.lstm != LstmShape::default() {
                params.push_str(&format!(", {}", c.lstm.spec()));
            }
            if c.clip > 0.0 {
                params.push_str(&format!(", clip {}", c.clip));
            }
            tried.push(Candidate {
                params,
                epoch: m.best_epoch,
                val_wmape: m.val_wmape,
                epochs_run: m.epochs_run,
                seconds: t0.elapsed().as_secs_f64(),
            });
            if best.as_ref().is_none_or(|b| m.val_wmape < b.val_wmape) {
                best = Some(m);
            }
        }
        let m = best.ok_or_else(|| PredictError::Model("empty hidden grid".into()))?;
        Ok((m, tried))
    }

    /// Predicted compute instructions per sample.
    pub fn predict(&self, samples: &[Sample]) -> Vec<f64> {
        let _g = tch::no_grad_guard();
        let mut out = Vec::with_capacity(samples.len());
        for chunk in samples.chunks(64) {
            let batch: Vec<&Sample> = chunk.iter().collect();
            let (p, _) = self.net.forward(&batch);
            out.extend(
                Vec::<f32>::try_from(&p)
                    .unwrap_or_default()
                    .into_iter()
                    .map(|x| x as f64 * SCALE),
            );
        }
        out
    }

    /// Per-block predictions of one sample (LSTM only; other networks see whole functions).
    pub fn predict_blocks(&self, s: &Sample) -> Option<Vec<f64>> {
        let _g = tch::no_grad_guard();
        let (_, blocks) = self.net.forward(&[s]);
        let (rows, owners) = blocks?;
        let rows = Vec::<f32>::try_from(&rows).ok()?;
        let mut per = vec![0.0; s.blocks.len()];
        for (v, (_, bi)) in rows.iter().zip(owners) {
            // A function without blocks has no entry block for its function term.
            if let Some(p) = per.get_mut(bi) {
                *p += *v as f64 * SCALE;
            }
        }
        Some(per)
    }

    /// Save to `dir` (`<arch>.json` with the vocabulary and settings, `<arch>.ot` weights).
    pub fn save(&self, dir: &Path) -> Result<(), PredictError> {
        std::fs::create_dir_all(dir).map_err(|e| PredictError::Io(dir.to_path_buf(), e))?;
        let stem = format!("{:?}", self.arch).to_lowercase();
        let meta = SavedMeta {
            arch: self.arch,
            vocab: self.vocab.words.clone(),
            config: self.config.clone(),
            best_epoch: self.best_epoch,
            val_wmape: (!self.val_wmape.is_nan()).then_some(self.val_wmape),
        };
        let p = dir.join(format!("{stem}.json"));
        let text =
            serde_json::to_vec_pretty(&meta).map_err(|e| PredictError::Model(e.to_string()))?;
        std::fs::write(&p, text).map_err(|e| PredictError::Io(p.clone(), e))?;
        let w = dir.join(format!("{stem}.ot"));
        self.vs
            .save(&w)
            .map_err(|e| PredictError::BadModel(w.clone(), e.to_string()))
    }

    /// Load a model saved by [`SeqModel::save`].
    pub fn load(dir: &Path, arch: Arch) -> Result<SeqModel, PredictError> {
        let stem = format!("{arch:?}").to_lowercase();
        let p = dir.join(format!("{stem}.json"));
        let text = std::fs::read(&p).map_err(|e| PredictError::Io(p.clone(), e))?;
        let meta: SavedMeta = serde_json::from_slice(&text)
            .map_err(|e| PredictError::BadModel(p.clone(), e.to_string()))?;
        if meta.arch != arch {
            return Err(PredictError::BadModel(
                p,
                format!("holds a {:?} model, not {arch:?}", meta.arch),
            ));
        }
        let mut m = SeqModel::empty(arch, Vocab::from_words(meta.vocab), meta.config);
        m.best_epoch = meta.best_epoch;
        m.val_wmape = meta.val_wmape.unwrap_or(f64::NAN);
        let w = dir.join(format!("{stem}.ot"));
        m.vs.load(&w)
            .map_err(|e| PredictError::BadModel(w.clone(), e.to_string()))?;
        Ok(m)
    }
}

/// One candidate of a validation-fold selection.
#[derive(Debug, Clone, Serialize)]
pub struct Candidate {
    pub params: String,
    /// The epoch early stopping kept (0 for the GBDT).
    pub epoch: usize,
    pub val_wmape: f64,
    /// Epochs run before early stopping ended training (0 for the GBDT).
    #[serde(default)]
    pub epochs_run: usize,
    /// Training time (noisy: the VM is shared).
    #[serde(default)]
    pub seconds: f64,
}

/// The GBDT's hyper-parameters.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TreeParams {
    pub iterations: usize,
    pub depth: usize,
    pub learning_rate: f32,
}

impl TreeParams {
    /// The fixed setting (no selection).
    pub const DEFAULT: TreeParams = TreeParams {
        iterations: 300,
        depth: 5,
        learning_rate: 0.1,
    };
    /// The grid chosen from on the validation programs.
    pub const GRID: [TreeParams; 6] = [
        TreeParams {
            iterations: 300,
            depth: 3,
            learning_rate: 0.1,
        },
        TreeParams {
            iterations: 300,
            depth: 5,
            learning_rate: 0.1,
        },
        TreeParams {
            iterations: 300,
            depth: 7,
            learning_rate: 0.1,
        },
        TreeParams {
            iterations: 1000,
            depth: 3,
            learning_rate: 0.05,
        },
        TreeParams {
            iterations: 1000,
            depth: 5,
            learning_rate: 0.05,
        },
        TreeParams {
            iterations: 1000,
            depth: 7,
            learning_rate: 0.05,
        },
    ];
}

/// Gradient-boosted trees on the bag of words (the AutoML random-forest stand-in).
pub struct TreeModel {
    vocab_len: usize,
    gbr: GradientBooster,
}

impl TreeModel {
    pub fn train(vocab: &Vocab, train: &[Sample], seed: u64) -> Result<TreeModel, PredictError> {
        TreeModel::train_with(vocab, train, seed, TreeParams::DEFAULT)
    }

    /// The best of [`TreeParams::GRID`] by validation WMAPE, with every candidate.
    pub fn train_selected(
        vocab: &Vocab,
        train: &[Sample],
        val: &[Sample],
        seed: u64,
    ) -> Result<(TreeModel, TreeParams, Vec<Candidate>), PredictError> {
        let vy: Vec<f64> = val.iter().map(|s| s.y).collect();
        let mut best: Option<(f64, TreeModel, TreeParams)> = None;
        let mut tried = vec![];
        for p in TreeParams::GRID {
            let t0 = std::time::Instant::now();
            let m = TreeModel::train_with(vocab, train, seed, p)?;
            let w = wmape(&m.predict(val), &vy);
            tried.push(Candidate {
                params: format!(
                    "{} trees, depth {}, lr {}",
                    p.iterations, p.depth, p.learning_rate
                ),
                epoch: 0,
                val_wmape: w,
                epochs_run: 0,
                seconds: t0.elapsed().as_secs_f64(),
            });
            if best.as_ref().is_none_or(|b| w < b.0) {
                best = Some((w, m, p));
            }
        }
        let (_, m, p) = best.ok_or_else(|| PredictError::Model("empty GBDT grid".into()))?;
        Ok((m, p, tried))
    }

    pub fn train_with(
        vocab: &Vocab,
        train: &[Sample],
        seed: u64,
        params: TreeParams,
    ) -> Result<TreeModel, PredictError> {
        let v = vocab.len();
        let refs: Vec<&Sample> = train.iter().collect();
        let x = bag(&refs, v);
        // forust's Matrix is column-major.
        let mut data = vec![0f64; x.len()];
        for r in 0..train.len() {
            for c in 0..v {
                data[c * train.len() + r] = x[r * v + c] as f64;
            }
        }
        let y: Vec<f64> = train.iter().map(|s| s.y).collect();
        let mut g = GradientBooster::default()
            .set_objective_type(ObjectiveType::SquaredLoss)
            .set_iterations(params.iterations)
            .set_learning_rate(params.learning_rate)
            .set_max_depth(params.depth)
            .set_seed(seed)
            .set_parallel(false);
        g.fit_unweighted(&Matrix::new(&data, train.len(), v), &y, None)
            .map_err(|e| PredictError::Model(format!("gradient boosting: {e}")))?;
        Ok(TreeModel {
            vocab_len: v,
            gbr: g,
        })
    }
    pub fn predict(&self, samples: &[Sample]) -> Vec<f64> {
        if samples.is_empty() {
            return vec![];
        }
        let v = self.vocab_len;
        let refs: Vec<&Sample> = samples.iter().collect();
        let x = bag(&refs, v);
        let mut data = vec![0f64; x.len()];
        for r in 0..samples.len() {
            for c in 0..v {
                data[c * samples.len() + r] = x[r * v + c] as f64;
            }
        }
        self.gbr
            .predict(&Matrix::new(&data, samples.len(), v), false)
    }
}

/// Split synthesised units into train and validation by program (every
/// `k`-th program validates).
pub fn split_by_program(units: &[IrUnit], k: usize) -> (Vec<IrUnit>, Vec<IrUnit>) {
    let (mut tr, mut va) = (vec![], vec![]);
    for (i, u) in units.iter().enumerate() {
        if k > 0 && i % k == k - 1 {
            va.push(u.clone());
        } else {
            tr.push(u.clone());
        }
    }
    (tr, va)
}

/// WMAPE of each model on one held-out NF.
#[derive(Debug, Clone, Serialize)]
pub struct NfScore {
    pub nf: String,
    pub functions: usize,
    /// Σ proxy compute instructions over the NF's functions.
    pub instructions: f64,
    pub wmape: BTreeMap<String, f64>,
    /// Counted non-stack memory accesses (IR, 32-bit words) vs the proxy's.
    pub memory_ir: u32,
    pub memory_proxy: u32,
}

/// The comparison on held-out NFs.
#[derive(Debug, Clone, Serialize)]
pub struct Evaluation {
    pub vocabulary: usize,
    pub train_functions: usize,
    pub val_functions: usize,
    pub per_nf: Vec<NfScore>,
    /// Pooled over every held-out function.
    pub overall: BTreeMap<String, f64>,
    /// Validation WMAPE and chosen epoch of each network.
    pub validation: BTreeMap<String, (f64, usize)>,
    /// Per-NF accuracy of counting memory accesses, 1 − |ir−proxy|/proxy, pooled.
    pub memory_accuracy: f64,
    /// Every model's candidates on the validation programs (hidden width
    /// and early-stopped epoch; the GBDT's grid), in the order tried.
    pub selection: BTreeMap<String, Vec<Candidate>>,
    /// Every validation and held-out function with its shape and every
    /// model's prediction (the length diagnosis reads these).
    pub functions: Vec<FunctionRow>,
}

/// Training occurrences at or below which a word counts as rare.
pub const RARE: usize = 10;

/// One scored function: its input's shape, its label and every model's
/// prediction, so that error can be read against length, blocks and
/// unseen or rare words without re-running anything.
#[derive(Debug, Clone, Serialize)]
pub struct FunctionRow {
    /// `validation` or `heldout`.
    pub set: String,
    pub unit: String,
    pub function: String,
    pub words: usize,
    pub blocks: usize,
    pub longest_block: usize,
    /// Words never seen in training (the `<unk>` id).
    pub unknown: usize,
    /// Words seen at most [`RARE`] times in training.
    pub rare: usize,
    pub y: f64,
    pub predictions: BTreeMap<String, f64>,
}

/// The rows of `set`'s samples: shape against the training words' counts.
fn function_rows(
    set: &str,
    samples: &[Sample],
    train_counts: &HashMap<i64, usize>,
    preds: &BTreeMap<String, Vec<f64>>,
) -> Vec<FunctionRow> {
    samples
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let ids = || s.blocks.iter().flatten();
            FunctionRow {
                set: set.to_string(),
                unit: s.unit.clone(),
                function: s.function.clone(),
                words: ids().count(),
                blocks: s.blocks.len(),
                longest_block: s.blocks.iter().map(Vec::len).max().unwrap_or(0),
                unknown: ids().filter(|id| **id == 1).count(),
                rare: ids()
                    .filter(|id| **id != 1 && train_counts.get(id).copied().unwrap_or(0) <= RARE)
                    .count(),
                y: s.y,
                predictions: preds.iter().map(|(m, p)| (m.clone(), p[i])).collect(),
            }
        })
        .collect()
}

/// Every model [`evaluate`] compares, by name.
pub const MODELS: [&str; 4] = ["LSTM", "DNN", "CNN", "GBDT"];

/// Train every model on `synth` (split by program for validation) and score on `heldout`.
pub fn evaluate(
    synth: &[IrUnit],
    heldout: &[IrUnit],
    config: &TrainConfig,
    save_dir: Option<&Path>,
) -> Result<(Evaluation, SeqModel), PredictError> {
    let (eval, lstm) = evaluate_models(synth, heldout, config, save_dir, &MODELS)?;
    Ok((
        eval,
        lstm.ok_or_else(|| PredictError::Model("no LSTM trained".into()))?,
    ))
}

/// [`evaluate`] for the models named in `models` only (of [`MODELS`]);
/// with an empty `heldout` it measures the validation programs alone (how
/// candidates are explored without touching the held-out NFs).
pub fn evaluate_models(
    synth: &[IrUnit],
    heldout: &[IrUnit],
    config: &TrainConfig,
    save_dir: Option<&Path>,
    models: &[&str],
) -> Result<(Evaluation, Option<SeqModel>), PredictError> {
    if let Some(m) = models.iter().find(|m| !MODELS.contains(m)) {
        return Err(PredictError::Model(format!(
            "unknown model `{m}` (expected one of {})",
            MODELS.join(", ")
        )));
    }
    let (tr_units, va_units) = split_by_program(synth, 5);
    let vocab = Vocab::build(
        tr_units
            .iter()
            .flat_map(|u| u.functions.iter().filter(|f| !f.framework)),
    );
    let tr = samples(&tr_units, &vocab, true);
    let va = samples(&va_units, &vocab, true);
    let te = samples(heldout, &vocab, true);
    let y: Vec<f64> = te.iter().map(|s| s.y).collect();
    let mut preds: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let mut val_preds: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let mut validation = BTreeMap::new();
    let mut lstm = None;
    let mut selection = BTreeMap::new();
    for arch in [Arch::Lstm, Arch::Dnn, Arch::Cnn] {
        if !models.contains(&arch.name()) {
            continue;
        }
        let (m, tried) = SeqModel::train_selected(arch, vocab.clone(), config, &tr, &va)?;
        selection.insert(arch.name().to_string(), tried);
        validation.insert(arch.name().to_string(), (m.val_wmape, m.best_epoch));
        preds.insert(arch.name().to_string(), m.predict(&te));
        val_preds.insert(arch.name().to_string(), m.predict(&va));
        if let Some(d) = save_dir {
            m.save(d)?;
        }
        if arch == Arch::Lstm {
            lstm = Some(m);
        }
    }
    if models.contains(&"GBDT") {
        let tree = if config.hidden_grid.is_empty() {
            TreeModel::train(&vocab, &tr, config.seed)?
        } else {
            let (t, _, tried) = TreeModel::train_selected(&vocab, &tr, &va, config.seed)?;
            selection.insert("GBDT".into(), tried);
            t
        };
        let vy: Vec<f64> = va.iter().map(|s| s.y).collect();
        let vp = tree.predict(&va);
        validation.insert("GBDT".into(), (wmape(&vp, &vy), 0));
        val_preds.insert("GBDT".into(), vp);
        preds.insert("GBDT".into(), tree.predict(&te));
    }
    let mut per_nf = vec![];
    let mut mem_err = 0.0;
    let mut mem_tot = 0.0;
    for u in heldout {
        let idx: Vec<usize> = te
            .iter()
            .enumerate()
            .filter(|(_, s)| s.unit == u.name)
            .map(|(i, _)| i)
            .collect();
        if idx.is_empty() {
            continue;
        }
        let yy: Vec<f64> = idx.iter().map(|i| y[*i]).collect();
        let mut w = BTreeMap::new();
        for (name, p) in &preds {
            let pp: Vec<f64> = idx.iter().map(|i| p[*i]).collect();
            w.insert(name.clone(), wmape(&pp, &yy));
        }
        let own = u
            .functions
            .iter()
            .filter(|f| !f.framework && f.proxy.is_some());
        let (mi, mp) = own.fold((0u32, 0u32), |(a, b), f| {
            (a + f.memory_words(), b + f.proxy.map_or(0, |p| p.memory))
        });
        mem_err += (mi as f64 - mp as f64).abs();
        mem_tot += mp as f64;
        per_nf.push(NfScore {
            nf: u.name.clone(),
            functions: idx.len(),
            instructions: yy.iter().sum(),
            wmape: w,
            memory_ir: mi,
            memory_proxy: mp,
        });
    }
    let overall = preds
        .iter()
        .map(|(n, p)| (n.clone(), wmape(p, &y)))
        .collect();
    let mut train_counts: HashMap<i64, usize> = HashMap::new();
    for id in tr.iter().flat_map(|s| s.blocks.iter().flatten()) {
        *train_counts.entry(*id).or_default() += 1;
    }
    let mut functions = function_rows("validation", &va, &train_counts, &val_preds);
    functions.extend(function_rows("heldout", &te, &train_counts, &preds));
    let eval = Evaluation {
        vocabulary: vocab.len(),
        train_functions: tr.len(),
        val_functions: va.len(),
        per_nf,
        overall,
        validation,
        memory_accuracy: if mem_tot > 0.0 {
            1.0 - mem_err / mem_tot
        } else {
            f64::NAN
        },
        selection,
        functions,
    };
    Ok((eval, lstm))
}

/// Rows of word ids padded to the longest row, with a mask of real words:
/// (ids, mask, row length).
fn pad<'a>(rows: impl ExactSizeIterator<Item = &'a [i64]> + Clone) -> (Vec<i64>, Vec<f32>, usize) {
    let t = rows.clone().map(<[i64]>::len).max().unwrap_or(1).max(1);
    let mut ids = vec![0i64; rows.len() * t];
    let mut mask = vec![0f32; rows.len() * t];
    for (r, c) in rows.enumerate() {
        for (j, id) in c.iter().enumerate() {
            ids[r * t + j] = *id;
            mask[r * t + j] = 1.0;
        }
    }
    (ids, mask, t)
}

/// Float rows padded with zeros to `t` (rows longer than `t` are cut).
fn pad_f<'a>(rows: impl ExactSizeIterator<Item = &'a [f32]>, t: usize) -> (Vec<f32>, usize, usize) {
    let n = rows.len();
    let mut out = vec![0f32; n * t];
    for (r, c) in rows.enumerate() {
        for (j, v) in c.iter().take(t).enumerate() {
            out[r * t + j] = *v;
        }
    }
    (out, n, t)
}

/// Per-word predictions summed per row (masked), and the rows summed into
/// the function that owns each: (per function, per row).
fn sum_by_owner(
    per_word: &Tensor,
    mask: &Tensor,
    owners: impl Iterator<Item = usize>,
    nf: i64,
) -> (Tensor, Tensor) {
    let per_row = (per_word * mask).sum_dim_intlist([1i64].as_slice(), false, Kind::Float);
    let owner: Vec<i64> = owners.map(|o| o as i64).collect();
    let f = Tensor::zeros([nf], (Kind::Float, Device::Cpu)).index_add(
        0,
        &Tensor::from_slice(&owner),
        &per_row,
    );
    (f, per_row)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A function of `n` words over ids 2.. (0 pads, 1 is unknown), cut
    /// into blocks of at most 7 words.
    fn sample(name: &str, n: usize, v: i64) -> Sample {
        let ids: Vec<i64> = (0..n).map(|i| 2 + (i as i64 * 5 + 3) % (v - 2)).collect();
        Sample {
            unit: "u".into(),
            function: name.into(),
            blocks: ids.chunks(7).map(<[i64]>::to_vec).collect(),
            calls: 1,
            y: 0.0,
        }
    }

    /// A function's prediction must not depend on the functions it is
    /// batched with: `SeqModel::predict` runs functions in chunks, and the
    /// networks pad the rows of a chunk to its longest row. Each network
    /// (and LSTM shape) with seeded random weights — what the padding
    /// reaches is a property of the wiring, not of what was learnt —
    /// predicts a 20-word function alone and among shorter and longer ones
    /// (one longer than a CNN window and an LSTM chunk), at two positions.
    ///
    /// Not bitwise: libtorch's kernels depend on the batch's shape (the
    /// same function twice in one batch gets two predictions differing in
    /// the last float bits with the bidirectional function-sequence LSTM,
    /// and the CNN's alone and twice differ by 2e-7 relative). So the bound
    /// is 1e-6 relative to the larger of the prediction and `SCALE` (the
    /// networks' output unit: f32 rounding is relative to the raw per-word
    /// terms, not to their sum, which can cancel to near zero). The
    /// padding defect this guards against moved a CNN prediction by 6%.
    #[test]
    fn a_prediction_does_not_depend_on_its_batch() {
        let v = 12i64;
        let vocab = Vocab::from_words((0..v).map(|i| format!("w{i}")).collect());
        let mut nets = vec![
            (Arch::Dnn, LstmShape::default()),
            (Arch::Cnn, LstmShape::default()),
        ];
        for spec in [
            "block",
            "function",
            "function,bidir,block-readout",
            "block,bidir,layers2,embed8",
            "block,function-term",
        ] {
            nets.push((Arch::Lstm, LstmShape::parse(spec).expect(spec)));
        }
        let s = sample("s", 20, v);
        let long = sample("long", CNN_WINDOW + 40, v);
        let among = [
            sample("short", 3, v),
            s.clone(),
            long.clone(),
            sample("mid", 60, v),
        ];
        let last = [long, sample("one", 1, v), s.clone()];
        let mut moved = vec![];
        for (arch, shape) in nets {
            let what = format!("{} {}", arch.name(), shape.spec());
            let _torch = crate::torch_training();
            tch::manual_seed(19);
            let config = TrainConfig {
                hidden: 8,
                lstm: shape,
                ..TrainConfig::tiny()
            };
            let m = SeqModel::empty(arch, vocab.clone(), config);
            let alone = m.predict(std::slice::from_ref(&s))[0];
            assert!(
                alone.abs() > 1e-3,
                "{what}: a zero prediction tests nothing"
            );
            for p in [m.predict(&among)[1], m.predict(&last)[2]] {
                if (p - alone).abs() > 1e-6 * alone.abs().max(SCALE) {
                    moved.push(format!("{what}: {alone} alone, {p} in a batch"));
                }
            }
        }
        assert!(moved.is_empty(), "{moved:#?}");
    }

    /// The selected LSTM reads each block on its own and sums a head on
    /// every word, so its prediction is additive over blocks: a function
    /// whose blocks appear twice is predicted twice (seeded random weights;
    /// the property is one of wiring). Its length cannot push the state
    /// anywhere training did not go. A whole-function sequence carries its
    /// state across blocks and is not additive (checked, so the test can
    /// tell the two apart).
    /// An untrained width-8 LSTM of shape `spec`, its weights drawn from
    /// seed 19: two shapes built so start from the same weights wherever
    /// they share a layer.
    fn seeded_lstm(spec: &str, vocab: &Vocab) -> SeqModel {
        let _torch = crate::torch_training();
        tch::manual_seed(19);
        let config = TrainConfig {
            hidden: 8,
            lstm: LstmShape::parse(spec).expect(spec),
            ..TrainConfig::tiny()
        };
        SeqModel::empty(Arch::Lstm, vocab.clone(), config)
    }

    #[test]
    fn the_block_lstm_adds_its_blocks_up() {
        let v = 12i64;
        let vocab = Vocab::from_words((0..v).map(|i| format!("w{i}")).collect());
        let once = sample("once", 90, v);
        let twice = Sample {
            blocks: [once.blocks.clone(), once.blocks.clone()].concat(),
            ..sample("twice", 90, v)
        };
        for (spec, additive) in [("block", true), ("block,unk5", true), ("function", false)] {
            let m = seeded_lstm(spec, &vocab);
            let p = m.predict(&[once.clone(), twice.clone()]);
            let off = (p[1] - 2.0 * p[0]).abs();
            assert_eq!(
                off <= 1e-5 * p[0].abs().max(SCALE),
                additive,
                "{spec}: once {}, twice {}",
                p[0],
                p[1]
            );
        }
    }

    /// The function term reads the function's structure (size, blocks,
    /// calls) and nothing else: with seeded random weights, the term — a
    /// `block,function-term` LSTM's prediction minus that of a `block`
    /// LSTM from the same seed, whose other weights are the same because
    /// the term is created last — is the same for two functions that
    /// differ only in which words they hold, moves when only the number of
    /// calls does (which the plain LSTM ignores), and sits in the entry
    /// block alone: the other blocks are predicted as without the term. A
    /// saved and loaded model keeps it.
    #[test]
    fn the_function_term_reads_only_the_function_structure() {
        let v = 12i64;
        let vocab = Vocab::from_words((0..v).map(|i| format!("w{i}")).collect());
        let (plain, with) = (
            seeded_lstm("block", &vocab),
            seeded_lstm("block,function-term", &vocab),
        );
        let a = sample("a", 20, v);
        // The same shape with other words.
        let other_words = Sample {
            blocks: a
                .blocks
                .iter()
                .map(|b| b.iter().map(|id| 2 + (id - 2 + 3) % (v - 2)).collect())
                .collect(),
            ..a.clone()
        };
        let more_calls = Sample {
            calls: 4,
            ..a.clone()
        };
        let term = |s: &Sample| {
            with.predict(std::slice::from_ref(s))[0] - plain.predict(std::slice::from_ref(s))[0]
        };
        let close = |x: f64, y: f64| (x - y).abs() <= 1e-5 * x.abs().max(y.abs()).max(SCALE);
        assert!(term(&a).abs() > 1e-3, "the term adds nothing: {}", term(&a));
        assert!(
            !close(
                plain.predict(std::slice::from_ref(&a))[0],
                plain.predict(std::slice::from_ref(&other_words))[0]
            ),
            "the words must matter to the blocks, or the next check tests nothing"
        );
        assert!(
            close(term(&a), term(&other_words)),
            "the term read the words: {} vs {}",
            term(&a),
            term(&other_words)
        );
        assert_eq!(
            plain.predict(std::slice::from_ref(&a)),
            plain.predict(std::slice::from_ref(&more_calls))
        );
        assert!(
            !close(term(&a), term(&more_calls)),
            "the term ignored the calls: {}",
            term(&a)
        );
        let (bp, bw) = (
            plain.predict_blocks(&a).expect("blocks"),
            with.predict_blocks(&a).expect("blocks"),
        );
        assert!(close(bw[0] - bp[0], term(&a)), "{bw:?} vs {bp:?}");
        for (p, w) in bp.iter().zip(&bw).skip(1) {
            assert!(close(*p, *w), "{bw:?} vs {bp:?}");
        }
        let dir = tempfile::tempdir().expect("tmp");
        with.save(dir.path()).expect("saves");
        let loaded = SeqModel::load(dir.path(), Arch::Lstm).expect("loads");
        assert_eq!(loaded.config.lstm, with.config.lstm);
        let one = std::slice::from_ref(&a);
        assert_eq!(loaded.predict(one), with.predict(one));
    }

    /// The vocabulary comes from the training programs, so `<unk>` never
    /// occurs in training and the LSTM's input weights for it receive no
    /// gradient: they stay at their random initialisation, and every word
    /// the training programs lack drives the state with an arbitrary
    /// vector. Training with `unk<N>` shows the LSTM `<unk>` in place of
    /// some words, so those weights are learnt. Checked on the LSTM's input
    /// matrix column of `<unk>` after one epoch, against a network
    /// initialised with the same seed; the other columns move either way.
    #[test]
    fn unknown_word_training_teaches_the_unknown_input() {
        let v = 12i64;
        let vocab = Vocab::from_words((0..v).map(|i| format!("w{i}")).collect());
        let train: Vec<Sample> = (0..16)
            .map(|i| Sample {
                y: 10.0 + 2.0 * i as f64,
                ..sample(&format!("f{i}"), 10 + i, v)
            })
            .collect();
        let unk_column = |m: &SeqModel, id: i64| -> Tensor {
            m.vs.variables()["lstm.weight_ih_l0"].select(1, id).copy()
        };
        for pct in [0, 20] {
            let config = TrainConfig {
                hidden: 8,
                epochs: 1,
                lstm: LstmShape {
                    unknown_pct: pct,
                    ..LstmShape::default()
                },
                ..TrainConfig::tiny()
            };
            let init = {
                let _torch = crate::torch_training();
                tch::manual_seed(config.seed as i64);
                SeqModel::empty(Arch::Lstm, vocab.clone(), config.clone())
            };
            let m =
                SeqModel::train(Arch::Lstm, vocab.clone(), &config, &train, &[]).expect("train");
            let moved = |id| {
                (unk_column(&m, id) - unk_column(&init, id))
                    .abs()
                    .max()
                    .double_value(&[])
            };
            // A word the training functions hold (ids 5 and 10 here).
            let seen = train[0].blocks[0][0];
            assert!(
                moved(seen) > 0.0,
                "unk{pct}: a seen word's input was not trained"
            );
            assert_eq!(
                moved(1) > 0.0,
                pct > 0,
                "unk{pct}: <unk>'s input moved by {}",
                moved(1)
            );
        }
    }
}
