//! The paper's model: a multilayer perceptron in tch (libtorch), trained
//! with MSE on standardised inputs and target, and its grid search.
//!
//! The grid is the paper's (1–4 hidden layers of 16/32/64, ReLU/tanh/sigmoid,
//! Adam/SGD, learning rate 0.1/0.01/0.001, 10–200 epochs in steps of 10,
//! batch 8–128, dropout 0.1–0.5, L2), bounded: [`Grid`] lists the values a
//! search tries, and the number of epochs is searched for free by scoring
//! every 10th epoch of each run. Every score is on the validation fold only;
//! the test fold is never seen by the search.

use serde::{Deserialize, Serialize};
use tch::nn::{self, ModuleT, OptimizerConfig};
use tch::{Device, Kind, Tensor};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Activation {
    Relu,
    Tanh,
    Sigmoid,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Optimizer {
    Adam,
    Sgd,
}

/// The training loss on the standardised (log) target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Loss {
    /// Mean squared error (the paper's).
    #[default]
    Mse,
    /// Mean absolute error: on ln(y) it is about the mean relative error,
    /// which is what the accuracy measures, and it does not chase outliers.
    L1,
}

fn one() -> usize {
    1
}

/// One point of the grid.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MlpConfig {
    pub hidden_layers: usize,
    pub width: i64,
    pub activation: Activation,
    pub optimizer: Optimizer,
    pub learning_rate: f64,
    /// The epochs the final weights were trained for (chosen on validation).
    pub epochs: usize,
    pub batch: usize,
    pub dropout: f64,
    /// L2 weight decay.
    pub l2: f64,
    #[serde(default)]
    pub loss: Loss,
    /// Networks averaged: the chosen configuration trained from this many
    /// seeds (1: a single network).
    #[serde(default = "one")]
    pub members: usize,
    /// Standard deviation of Gaussian noise added to the (standardised)
    /// inputs of every training batch (0: none). Seen during training
    /// only: rows near the training rows, so the network is asked to be
    /// smooth between and just beyond the runs it saw.
    #[serde(default)]
    pub input_noise: f64,
    /// Mixup: every training batch is replaced by convex combinations of
    /// its rows with a shuffled copy (inputs and standardised ln-target
    /// alike, a weight drawn uniformly per row), so the network sees
    /// combinations of counters between experiments.
    #[serde(default)]
    pub mixup: bool,
    /// A linear path from the inputs straight to the output, added to the
    /// hidden layers' output: the network is a linear model (least squares
    /// on ln counters, learnt jointly) plus a non-linear correction, so
    /// between and beyond the runs it saw it leans on a monotone, additive
    /// part rather than on whatever the hidden units do there.
    #[serde(default)]
    pub linear_skip: bool,
    /// Iterate averaging: the weights scored and kept are an exponential
    /// moving average of the optimiser's iterates over about one scoring
    /// interval ([`averaging_decay`]), not the last iterate. A constant
    /// step size leaves the last iterate wandering in a noise ball whose
    /// radius grows with the step; a whole regime of rows (a chain
    /// forwarding all it is offered) then gets a common offset of a few
    /// per cent that changes from epoch to epoch; the average sits near
    /// the ball's centre (Polyak–Ruppert averaging).
    #[serde(default)]
    pub weight_average: bool,
    /// Output-layer refit: at every scoring point the scored weights are
    /// copied and the copy's output layer (and linear path) set to the
    /// minimiser of this configuration's loss (MSE: ridge normal
    /// equations; L1: iteratively reweighted least squares), with its L2
    /// on the output weights, given the hidden layers' activations on the
    /// training rows; that copy is scored, kept and shipped. The last
    /// iterate of a constant step size carries an offset common to whole
    /// regimes of rows (docs/predictor.md, "Why the MLP is behind GBR on
    /// the resource stimulus"); a common offset lives in the output
    /// layer, which the refit settles without touching the optimiser's
    /// trajectory.
    #[serde(default)]
    pub refit_output: bool,
    /// A saturating output: the network's output (standardised ln-target)
    /// is low + (high − low) · σ(z), z the output layer's, with [low, high]
    /// the training targets' range widened by [`OUTPUT_BOUND_MARGIN`] of
    /// its span on each side ([`output_bound`]), and training goes through
    /// the logistic. Throughput saturates: a chain forwarding all it is
    /// offered is a plateau of rows at the top of the range, and a run
    /// the network never saw should approach the edge of what it saw
    /// rather than run past it. Unlike the output clamp
    /// (`ModelMeta::target_range`, applied after training) the bound
    /// shapes what the hidden layers learn: a plateau row is fitted by
    /// any large enough z, not by one exact value.
    #[serde(default)]
    pub bounded_output: bool,
    /// The [low, high] of [`MlpConfig::bounded_output`], set by training
    /// from its targets (None: a linear output).
    #[serde(default)]
    pub output_bound: Option<[f64; 2]>,
    /// The network's shape: None, one stack of hidden layers over every
    /// input; Some, one sub-network per NF joined into one value
    /// ([`Heads`]). Set by training from the feature names and the target
    /// ([`Heads::per_nf`]) and saved with the configuration, so a saved
    /// model reloads with the same shape.
    #[serde(default)]
    pub heads: Option<Heads>,
}

impl MlpConfig {
    /// This configuration with the network shape for inputs named
    /// `features` and `target`: per-NF heads ([`Heads::per_nf`], joined by
    /// [`HeadJoin::for_target`]) when `per_nf_heads`, else one stack of
    /// hidden layers.
    pub fn shaped(
        self,
        per_nf_heads: bool,
        features: &[String],
        target: crate::features::Target,
    ) -> MlpConfig {
        MlpConfig {
            heads: per_nf_heads.then(|| Heads::per_nf(features, HeadJoin::for_target(target))),
            ..self
        }
    }
}

/// How per-NF heads are joined into the one value the output layer maps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HeadJoin {
    /// m = −τ · ln Σ exp(−h_i / τ), τ = [`SOFT_MINIMUM_TAU`]: a chain
    /// forwards what its slowest NF forwards (throughput).
    SoftMinimum,
    /// m = ln Σ exp(h_i): the ln of a sum of per-NF delays, which add up
    /// along a chain (latency).
    SoftSum,
}

impl HeadJoin {
    /// The join that fits a target: a minimum of rates, a sum of delays.
    pub fn for_target(target: crate::features::Target) -> HeadJoin {
        match target {
            crate::features::Target::Throughput => HeadJoin::SoftMinimum,
            crate::features::Target::Latency => HeadJoin::SoftSum,
        }
    }

    /// `h` is [rows, heads]; the joined value is [rows, 1].
    fn apply(self, h: &Tensor) -> Tensor {
        match self {
            HeadJoin::SoftMinimum => {
                (h / -SOFT_MINIMUM_TAU).logsumexp([1i64], true) * -SOFT_MINIMUM_TAU
            }
            HeadJoin::SoftSum => h.logsumexp([1i64], true),
        }
    }
}

/// The temperature of the soft minimum: a head 0.3 above the lowest moves
/// the minimum by less than 0.005 (0.1 · e^−3), so the join is close to a
/// hard minimum while every head still receives a gradient.
pub const SOFT_MINIMUM_TAU: f64 = 0.1;

/// Per-NF heads ([`MlpConfig::heads`]): which inputs each head reads, and
/// how their values are joined.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Heads {
    /// Per head, the indices of the inputs it reads (ascending).
    pub inputs: Vec<Vec<usize>>,
    pub join: HeadJoin,
}

impl Heads {
    /// One head per NF over that NF's own features: `<nf>_<counter>` goes
    /// to the head of `<nf>`, the name up to its last `_` (counter names,
    /// `LLC-load-misses` and the like, hold none); a feature with no `_`
    /// goes to every head. Heads are in order of their NF's first feature.
    /// No NF-prefixed feature at all: one head over every feature.
    pub fn per_nf(features: &[String], join: HeadJoin) -> Heads {
        let mut nfs: Vec<&str> = vec![];
        let mut own: Vec<Vec<usize>> = vec![];
        let mut shared = vec![];
        for (i, f) in features.iter().enumerate() {
            match f.rsplit_once('_') {
                Some((nf, _)) => match nfs.iter().position(|n| *n == nf) {
                    Some(k) => own[k].push(i),
                    None => {
                        nfs.push(nf);
                        own.push(vec![i]);
                    }
                },
                None => shared.push(i),
            }
        }
        if own.is_empty() {
            own.push(vec![]);
        }
        let inputs = own
            .into_iter()
            .map(|mut v| {
                v.extend(&shared);
                v.sort_unstable();
                v
            })
            .collect();
        Heads { inputs, join }
    }

    /// A head's width: the configuration's width shared among the heads,
    /// ⌈width / #heads⌉ rounded up to a multiple of 16 (5 NFs at width 64:
    /// 16 each, about the shipped network's parameter count; 1 NF: 64).
    pub fn width(&self, config_width: i64) -> i64 {
        let n = self.inputs.len().max(1);
        (config_width.max(1) as usize).div_ceil(n).div_ceil(16) as i64 * 16
    }
}

/// How far beyond the training targets' range the saturating output's
/// asymptotes lie, as a share of the range: the extreme training rows are
/// then reached at a finite pre-activation (σ ≈ 0.05 and 0.95), so the
/// loss does not push the weights without end to fit them.
pub const OUTPUT_BOUND_MARGIN: f64 = 0.05;

/// The asymptotes of a saturating output for training targets `y`: their
/// range widened by [`OUTPUT_BOUND_MARGIN`] of its span on each side (None
/// when the targets do not span a range).
pub fn output_bound(y: &[f64]) -> Option<[f64; 2]> {
    let lo = y.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = y.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let span = hi - lo;
    (span.is_finite() && span > 0.0).then(|| {
        let m = OUTPUT_BOUND_MARGIN * span;
        [lo - m, hi + m]
    })
}

/// The values a grid search tries (the cartesian product); `max_epochs`
/// bounds each run, scored every `epoch_step` epochs.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Grid {
    pub hidden_layers: Vec<usize>,
    pub width: Vec<i64>,
    pub activation: Vec<Activation>,
    pub optimizer: Vec<Optimizer>,
    pub learning_rate: Vec<f64>,
    pub batch: Vec<usize>,
    pub dropout: Vec<f64>,
    pub l2: Vec<f64>,
    pub loss: Vec<Loss>,
    pub max_epochs: usize,
    pub epoch_step: usize,
    /// The chosen configuration is retrained from this many seeds and the
    /// networks' predictions averaged: always with `ensemble_always`,
    /// else when that scores at least as well on the validation fold as
    /// the single network (1: never).
    pub ensemble: usize,
    /// Input transforms searched (the whole grid each): false raw
    /// counters, true ln(1 + counter).
    pub log_inputs: Vec<bool>,
    /// The best this many configurations found on the Pearson-selected
    /// counters are trained again on every non-constant counter, and the
    /// feature set the validation fold scores better is kept (0: the
    /// Pearson selection only). Pearson's r measures a linear relation:
    /// a counter whose effect is a threshold (the stressed NF's cycles
    /// under the resource stimulus) or matters only with another can fall
    /// below the threshold and still carry what the target depends on.
    #[serde(default)]
    pub unfiltered: usize,
    /// Input noise levels searched ([`MlpConfig::input_noise`]).
    #[serde(default = "zero_noise")]
    pub input_noise: Vec<f64>,
    /// Mixup on or off, searched ([`MlpConfig::mixup`]).
    #[serde(default = "no_mixup")]
    pub mixup: Vec<bool>,
    /// The linear path on or off, searched ([`MlpConfig::linear_skip`]).
    #[serde(default = "no_mixup")]
    pub linear_skip: Vec<bool>,
    /// Iterate averaging in every configuration
    /// ([`MlpConfig::weight_average`]).
    #[serde(default)]
    pub weight_average: bool,
    /// The output-layer refit in every configuration
    /// ([`MlpConfig::refit_output`]).
    #[serde(default)]
    pub refit_output: bool,
    /// The saturating output in every configuration
    /// ([`MlpConfig::bounded_output`]).
    #[serde(default)]
    pub bounded_output: bool,
    /// Per-NF heads in every configuration ([`MlpConfig::heads`], set by
    /// training from the feature names and the target). Not in the
    /// standard grid: the eighth round's candidate, registered but not
    /// scored (no nested fold finished by its cut-off), so not chosen
    /// (docs/predictor.md, "Twenty-first session").
    #[serde(default)]
    pub per_nf_heads: bool,
    /// Counters divided by the sample's length, measured as the largest
    /// `*_cycles` counter of the row (a busy-polling NF's cycles are the
    /// sample's duration): [`crate::model::PerCycle`]. Applies to the MLP
    /// and GBR trained with this grid alike.
    #[serde(default)]
    pub per_cycle: bool,
    /// Keep the seed ensemble ([`Grid::ensemble`] members) whatever the
    /// validation fold says (false: keep it only when the validation fold
    /// scores it at least as well as the single network). Members agree
    /// on rows like the training rows, so the row-wise validation fold
    /// barely sees what averaging does on a run the model never saw.
    #[serde(default)]
    pub ensemble_always: bool,
}

fn zero_noise() -> Vec<f64> {
    vec![0.0]
}

fn no_mixup() -> Vec<bool> {
    vec![false]
}

impl Grid {
    /// The bench's and the CLI's default: 24 configurations × up to 150
    /// epochs (scored every 10: the paper's 10–200 in steps of 10, cut at
    /// 150 for time on a 2-core machine), on ln(1 + counter) inputs, the
    /// chosen one then averaged over 5 seeds.
    /// Depth 1/2/4 and ReLU/tanh from the paper's ranges; width 64 (the
    /// paper found width matters less than optimiser, activation and batch
    /// size); Adam at 0.01 and 0.001; batch 32; dropout 0.1; L2 1e-3; MSE
    /// or L1 loss.
    ///
    /// Chosen on the validation folds of the linear chain's
    /// leave-one-experiment-out splits (never the test folds; numbers in
    /// docs/predictor.md): ln(1 + counter) inputs raised the mean
    /// validation accuracy on every fold (load 0.907 → 0.929); L1 raised
    /// it on the load stimulus (0.929 → 0.939) and MSE was better on the
    /// resource stimulus, so both stay in the grid; 100 epochs underfit
    /// the resource stimulus (best epochs 140–200 with a 200 cap); dropout
    /// 0 did not beat 0.1. SGD (momentum 0.9) is left out to pay for the
    /// longer runs and the second loss: a time budget, not a validation
    /// result (with raw inputs it was chosen on 1 of the 4 load folds; it
    /// was not tried with logged inputs).
    ///
    /// The 4 best configurations are retried on every non-constant counter
    /// (`unfiltered`): on the resource stimulus the validation folds chose
    /// that set on every fold (validation accuracy on folds 0 and 1 0.890
    /// and 0.898 → 0.925 and 0.926; GBR's 0.925 and 0.920), because
    /// Pearson drops `bridge_cycles` (r 0.03), the
    /// counter GBR splits on most: a busy-polling NF's cycles are the
    /// sample's length, by which every other count is scaled.
    ///
    /// L2 weight decay 1e-2 (was 1e-4) is the one extrapolation remedy
    /// the nested leave-one-experiment-out folds chose (inner folds of the
    /// training experiments only, `split::inner_folds`; mean inner accuracy
    /// 0.8782 → 0.8861 over 8 outer folds with a reduced grid). Per-cycle
    /// inputs, input noise 0.1, mixup, a linear skip path and width 16
    /// did not raise it (docs/predictor.md, "Choosing remedies for
    /// extrapolation"), so they are off here. The bench's test folds,
    /// computed afterwards and not used to revise this, did worse with it
    /// on the throughput leave-one-experiment-out rows (resource 0.905 →
    /// 0.897, load + resource 0.898 → 0.876) and better on latency.
    /// Re-made with this very grid in every inner fit (ensemble included),
    /// 1e-2 and 1e-4 tie (nested mean 0.8931 and 0.8927: load prefers
    /// 1e-2, resource 1e-4), 10 ensemble members tie 5 (0.8934), and 1e-3,
    /// between the two, scores 0.8957 (load 0.8945, resource 0.8966): L2
    /// is 1e-3 since 2026-11-26 21:08 UTC.
    ///
    /// Input noise σ 0.1 on the standardised inputs of every training
    /// batch since 2026-11-26 23:08 UTC: with L2 1e-3 and this very grid
    /// in every inner fit, the nested folds scored it (with the output
    /// clamp of `ModelMeta::target_range`) 0.8976 against 0.8949 for the
    /// shipped grid over the 6 outer folds both runs completed
    /// (docs/predictor.md, "Third round").
    ///
    /// The 5-seed ensemble is kept always (`ensemble_always`) since
    /// 2026-11-27 01:00 UTC: scored from the same fits on all 9 nested
    /// outer folds, keeping it always gave 0.9011 against 0.8992 for
    /// keeping it only when the validation fold prefers it (load 0.9018
    /// vs 0.8940, resource 0.9006 vs 0.9034); 10 members always gave
    /// 0.9006, a tie with 5 (docs/predictor.md, "Fourth round").
    ///
    /// The output layer is refitted at every scoring point
    /// (`refit_output`) since 2026-11-27 10:33 UTC: registered before its
    /// runs, it scored 0.9053 on all 9 nested outer folds against 0.9011
    /// for the grid before it (load 0.9088 vs 0.9018, resource 0.9025 vs
    /// 0.9006; better on 6 of 9 folds) (docs/predictor.md, "Sixth
    /// round").
    ///
    /// The output saturates (`bounded_output`: a sigmoid between the
    /// training targets' range widened by 5%, trained through and refitted
    /// through) since 2026-11-28 03:06 UTC: registered before its runs, it
    /// scored 0.9098 on all 9 nested outer folds against 0.9053 for the
    /// grid before it (resource 0.9135 vs 0.9025, load 0.9051 vs 0.9088;
    /// better on 5 of 9 folds) (docs/predictor.md, "Seventh round").
    pub fn standard() -> Grid {
        Grid {
            hidden_layers: vec![1, 2, 4],
            width: vec![64],
            activation: vec![Activation::Relu, Activation::Tanh],
            optimizer: vec![Optimizer::Adam],
            learning_rate: vec![0.01, 0.001],
            batch: vec![32],
            dropout: vec![0.1],
            l2: vec![1e-3],
            loss: vec![Loss::Mse, Loss::L1],
            max_epochs: 150,
            epoch_step: 10,
            ensemble: 5,
            log_inputs: vec![true],
            unfiltered: 4,
            input_noise: vec![0.1],
            mixup: no_mixup(),
            linear_skip: no_mixup(),
            per_cycle: false,
            ensemble_always: true,
            weight_average: false,
            refit_output: true,
            bounded_output: true,
            per_nf_heads: false,
        }
    }

    /// Two configurations × 20 epochs: for tests.
    pub fn tiny() -> Grid {
        Grid {
            hidden_layers: vec![1, 2],
            width: vec![16],
            activation: vec![Activation::Relu],
            optimizer: vec![Optimizer::Adam],
            learning_rate: vec![0.01],
            batch: vec![32],
            dropout: vec![0.1],
            l2: vec![0.0],
            loss: vec![Loss::Mse],
            max_epochs: 20,
            epoch_step: 10,
            ensemble: 1,
            log_inputs: vec![false],
            unfiltered: 0,
            input_noise: zero_noise(),
            mixup: no_mixup(),
            linear_skip: no_mixup(),
            per_cycle: false,
            ensemble_always: false,
            weight_average: false,
            refit_output: false,
            bounded_output: false,
            per_nf_heads: false,
        }
    }

    /// Every configuration (epochs = max; the search picks fewer).
    pub fn configs(&self) -> Vec<MlpConfig> {
        let mut v = vec![];
        for &hidden_layers in &self.hidden_layers {
            for &width in &self.width {
                for &activation in &self.activation {
                    for &optimizer in &self.optimizer {
                        for &learning_rate in &self.learning_rate {
                            for &batch in &self.batch {
                                for &dropout in &self.dropout {
                                    for &l2 in &self.l2 {
                                        for &loss in &self.loss {
                                            for &input_noise in &self.input_noise {
                                                for &mixup in &self.mixup {
                                                    for &linear_skip in &self.linear_skip {
                                                        v.push(MlpConfig {
                                                            hidden_layers,
                                                            width,
                                                            activation,
                                                            optimizer,
                                                            learning_rate,
                                                            epochs: self.max_epochs,
                                                            batch,
                                                            dropout,
                                                            l2,
                                                            loss,
                                                            members: 1,
                                                            input_noise,
                                                            mixup,
                                                            linear_skip,
                                                            weight_average: self.weight_average,
                                                            refit_output: self.refit_output,
                                                            bounded_output: self.bounded_output,
                                                            output_bound: None,
                                                            heads: None,
                                                        });
                                                    }
                                                }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        v
    }
}

/// A trained MLP: its configuration and weights (one network, or
/// `config.members` networks whose predictions are averaged).
pub struct Mlp {
    pub config: MlpConfig,
    pub inputs: i64,
    vs: nn::VarStore,
    nets: Vec<Net>,
}

/// One network: the body and output, plus the optional linear path
/// ([`MlpConfig::linear_skip`]).
#[derive(Debug)]
struct Net {
    body: Body,
    out: nn::Linear,
    skip: Option<nn::Linear>,
    /// (low, span) of a saturating output ([`MlpConfig::bounded_output`]).
    bound: Option<(f64, f64)>,
}

/// What the output layer reads.
#[derive(Debug)]
enum Body {
    /// Hidden layers over every input.
    Dense(nn::SequentialT),
    /// Per-NF heads ([`Heads`]), joined into one value.
    Heads { heads: Vec<Head>, join: HeadJoin },
}

/// One NF's sub-network: its inputs, hidden layers, and the layer that
/// ends it in one value.
#[derive(Debug)]
struct Head {
    inputs: Tensor,
    hidden: nn::SequentialT,
    end: nn::Linear,
}

impl Body {
    /// The output layer's input: the last hidden layer's activations
    /// ([rows, width]) or the joined heads ([rows, 1]).
    fn forward_t(&self, x: &Tensor, train: bool) -> Tensor {
        match self {
            Body::Dense(hidden) => hidden.forward_t(x, train),
            Body::Heads { heads, join } => {
                let h: Vec<Tensor> = heads
                    .iter()
                    .map(|head| {
                        head.hidden
                            .forward_t(&x.index_select(1, &head.inputs), train)
                            .apply(&head.end)
                    })
                    .collect();
                join.apply(&Tensor::cat(&h, 1))
            }
        }
    }
}

impl Net {
    fn forward_t(&self, x: &Tensor, train: bool) -> Tensor {
        let y = self.body.forward_t(x, train).apply(&self.out);
        let z = match &self.skip {
            Some(l) => y + x.apply(l),
            None => y,
        };
        match self.bound {
            Some((low, span)) => z.sigmoid() * span + low,
            None => z,
        }
    }

    /// Set the output layer (and the linear path) to the minimiser of the
    /// configuration's training loss given the hidden layers' activations
    /// on the training rows, evaluated as predictions are (no dropout, no
    /// input noise): see [`MlpConfig::refit_output`]. Left unchanged when
    /// the system is singular or a value is not finite.
    fn refit_output(&mut self, xs: &Tensor, y: &[f64], c: &MlpConfig) {
        let design = tch::no_grad(|| {
            let h = self.body.forward_t(xs, false);
            match &self.skip {
                Some(_) => Tensor::cat(&[h, xs.shallow_clone()], 1),
                None => h,
            }
        });
        let Some(rows) = rows_of(&design) else {
            return;
        };
        let width = self.out.ws.size()[1] as usize;
        let l1 = c.loss == Loss::L1;
        // The L2 weight decay of Adam/SGD adds `l2 · w` to the gradient of
        // the mean loss: for the mean squared error that is the ridge
        // penalty n·l2/2 on the normal equations; for L1, n·l2 on the
        // reweighted ones (see `linear::fit_output_layer`).
        let fit = match self.bound {
            None => crate::linear::fit_output_layer(&rows, y, c.l2, l1),
            Some(bound) => self.output_layer().and_then(|start| {
                crate::linear::fit_bounded_output_layer(&rows, y, c.l2, l1, bound, &start)
            }),
        };
        let Some(fit) = fit else {
            return;
        };
        tch::no_grad(|| {
            let w: Vec<f32> = fit.coef[..width].iter().map(|v| *v as f32).collect();
            self.out
                .ws
                .copy_(&Tensor::from_slice(&w).reshape([1, width as i64]));
            if let Some(b) = &mut self.out.bs {
                b.copy_(&Tensor::from_slice(&[fit.intercept as f32]));
            }
            if let Some(l) = &mut self.skip {
                let s: Vec<f32> = fit.coef[width..].iter().map(|v| *v as f32).collect();
                let k = s.len() as i64;
                l.ws.copy_(&Tensor::from_slice(&s).reshape([1, k]));
            }
        });
    }
}

impl Net {
    /// The output layer (and linear path) as trained, in the layout
    /// [`Net::refit_output`] writes back: the output weights, then the
    /// linear path's (None when a tensor cannot be read).
    fn output_layer(&self) -> Option<crate::linear::Linear> {
        let flat = |t: &Tensor| Vec::<f32>::try_from(t.reshape([-1]).to_kind(Kind::Float)).ok();
        let mut coef: Vec<f64> = flat(&self.out.ws)?.into_iter().map(f64::from).collect();
        if let Some(l) = &self.skip {
            coef.extend(flat(&l.ws)?.into_iter().map(f64::from));
        }
        let intercept = match &self.out.bs {
            Some(b) => f64::from(*flat(b)?.first()?),
            None => 0.0,
        };
        Some(crate::linear::Linear { intercept, coef })
    }
}

/// The rows of a 2-D tensor as f64 vectors (None when not 2-D).
fn rows_of(t: &Tensor) -> Option<Vec<Vec<f64>>> {
    let size = t.size();
    let [n, k] = size[..] else {
        return None;
    };
    let flat: Vec<f32> = Vec::<f32>::try_from(t.reshape([-1]).to_kind(Kind::Float)).ok()?;
    Some(
        flat.chunks(k.max(1) as usize)
            .take(n as usize)
            .map(|r| r.iter().map(|v| f64::from(*v)).collect())
            .collect(),
    )
}

impl std::fmt::Debug for Mlp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mlp").field("config", &self.config).finish()
    }
}

fn build_one(root: &nn::Path, inputs: i64, c: &MlpConfig) -> Net {
    let skip = c.linear_skip.then(|| {
        nn::linear(
            root / "skip",
            inputs,
            1,
            nn::LinearConfig {
                bias: false,
                ..Default::default()
            },
        )
    });
    let (body, width) = match &c.heads {
        None => {
            let (hidden, width) = build_hidden(root, inputs, c.width, c);
            (Body::Dense(hidden), width)
        }
        Some(h) => {
            let head_width = h.width(c.width);
            let heads = h
                .inputs
                .iter()
                .enumerate()
                .map(|(k, idx)| {
                    let p = root / format!("h{k}");
                    let (hidden, width) = build_hidden(&p, idx.len() as i64, head_width, c);
                    let idx: Vec<i64> = idx.iter().map(|&i| i as i64).collect();
                    Head {
                        inputs: Tensor::from_slice(&idx),
                        hidden,
                        // Zero: every head starts at the same value, so
                        // the soft minimum shares each row's gradient among
                        // them; from a random start the head lowest by
                        // chance takes the whole gradient of every row and
                        // the others never learn (the synthetic test's
                        // heads fitted their training rows to 0.12 so).
                        end: nn::linear(
                            &p / "end",
                            width,
                            1,
                            nn::LinearConfig {
                                ws_init: nn::Init::Const(0.0),
                                bs_init: Some(nn::Init::Const(0.0)),
                                bias: true,
                            },
                        ),
                    }
                })
                .collect();
            (
                Body::Heads {
                    heads,
                    join: h.join,
                },
                1,
            )
        }
    };
    // Per-NF heads: the output layer a · m + b starts as the identity
    // (a = 1, b = 0), so the network starts as a soft minimum of the heads.
    // A random a < 0 would turn it into a soft maximum of −a · h_i, which
    // cannot fit a minimum, and a passes through 0 to change its sign.
    let out_init = match &c.heads {
        None => Default::default(),
        Some(_) => nn::LinearConfig {
            ws_init: nn::Init::Const(1.0),
            bs_init: Some(nn::Init::Const(0.0)),
            bias: true,
        },
    };
    Net {
        body,
        out: nn::linear(root / "out", width, 1, out_init),
        skip,
        bound: c.output_bound.map(|[low, high]| (low, high - low)),
    }
}

/// The hidden layers (`width` wide; the configuration's depth, activation
/// and dropout) and the width they end with.
fn build_hidden(root: &nn::Path, inputs: i64, width: i64, c: &MlpConfig) -> (nn::SequentialT, i64) {
    let mut net = nn::seq_t();
    let mut width_in = inputs;
    for layer in 0..c.hidden_layers {
        net = net.add(nn::linear(
            root / format!("l{layer}"),
            width_in,
            width,
            Default::default(),
        ));
        net = match c.activation {
            Activation::Relu => net.add_fn(|x| x.relu()),
            Activation::Tanh => net.add_fn(|x| x.tanh()),
            Activation::Sigmoid => net.add_fn(|x| x.sigmoid()),
        };
        let p = c.dropout;
        if p > 0.0 {
            net = net.add_fn_t(move |x, train| x.dropout(p, train));
        }
        width_in = width;
    }
    (net, width_in)
}

/// The networks of `c` in `vs`: a single network at the root (the layout of
/// every model saved before ensembles), members under `m0`, `m1`, … .
fn build(vs: &nn::VarStore, inputs: i64, c: &MlpConfig) -> Vec<Net> {
    let root = vs.root();
    if c.members <= 1 {
        vec![build_one(&root, inputs, c)]
    } else {
        (0..c.members)
            .map(|k| build_one(&(&root / format!("m{k}")), inputs, c))
            .collect()
    }
}

fn tensor(x: &[Vec<f64>]) -> Tensor {
    let cols = x.first().map_or(0, Vec::len) as i64;
    let flat: Vec<f32> = x.iter().flatten().map(|v| *v as f32).collect();
    Tensor::from_slice(&flat).reshape([x.len() as i64, cols])
}

/// The decay of the iterate average after `step` optimiser steps: an
/// exponential average whose horizon is one scoring interval
/// (`interval_steps`), so each scored snapshot averages about the iterates
/// since the previous one; early on, (1 + t)/(10 + t) keeps the initial
/// weights from weighing on the average (the warm-up of TensorFlow's
/// `ExponentialMovingAverage` with `num_updates`).
pub fn averaging_decay(step: usize, interval_steps: f64) -> f64 {
    let t = step as f64;
    (1.0 - 1.0 / interval_steps.max(1.0)).min((1.0 + t) / (10.0 + t))
}

/// Every (configuration, validation score) a search tried.
pub type Tried = Vec<(MlpConfig, f64)>;

/// Training results of one configuration.
struct Run {
    mlp: Mlp,
    val_score: f64,
}

impl Mlp {
    fn new(config: MlpConfig, inputs: i64) -> Mlp {
        let _torch = crate::torch_training();
        let vs = nn::VarStore::new(Device::Cpu);
        let nets = build(&vs, inputs, &config);
        Mlp {
            config,
            inputs,
            vs,
            nets,
        }
    }

    /// Predictions (standardised target space) for standardised rows: the
    /// mean over the members.
    pub fn predict(&self, x: &[Vec<f64>]) -> Vec<f64> {
        self.predict_first(x, self.nets.len())
    }

    /// As [`Mlp::predict`] with the mean over the first `k` members only
    /// (at least one, at most all): member `j` was trained from seed
    /// `seed + j`, so this is the ensemble a grid with `ensemble = k`
    /// would have built (for diagnosis).
    pub fn predict_first(&self, x: &[Vec<f64>], k: usize) -> Vec<f64> {
        if x.is_empty() {
            return vec![];
        }
        let k = k.clamp(1, self.nets.len().max(1));
        // One thread, as in training: a product split over threads sums in
        // another order. The same saved model scored differently in the 9th
        // digit in a process that had trained (one thread) and one that had
        // not (libtorch's default), in the predictor bench's cache check
        // (twenty-first session); a model must predict alike wherever it
        // is loaded, whatever the machine's core count.
        tch::set_num_threads(1);
        let xs = tensor(x);
        let out = tch::no_grad(|| {
            let sum = self
                .nets
                .iter()
                .take(k)
                .map(|n| n.forward_t(&xs, false))
                .reduce(|a, b| a + b);
            sum.map(|s| s / k as f64)
        });
        out.and_then(|o| Vec::<f32>::try_from(o.reshape([-1]).to_kind(Kind::Float)).ok())
            .unwrap_or_default()
            .into_iter()
            .map(f64::from)
            .collect()
    }

    /// Train one configuration (a single network); every `epoch_step`
    /// epochs score the validation rows with `score` (higher is better) and
    /// keep the best weights.
    fn train(
        c: &MlpConfig,
        x: &[Vec<f64>],
        y: &[f64],
        val_x: &[Vec<f64>],
        score: &dyn Fn(&[f64]) -> f64,
        epoch_step: usize,
        seed: u64,
    ) -> Run {
        let _training = crate::torch_training();
        tch::manual_seed(seed as i64);
        let inputs = x.first().map_or(0, Vec::len) as i64;
        let c = MlpConfig {
            members: 1,
            // The training targets' range, whatever a configuration passed
            // in carries (a member is trained from the chosen one's).
            output_bound: if c.bounded_output {
                output_bound(y)
            } else {
                None
            },
            ..c.clone()
        };
        let current = Mlp::new(c.clone(), inputs);
        let mut best = Mlp::new(c.clone(), inputs);
        // The iterate average starts at the initial weights.
        let average = c
            .weight_average
            .then(|| {
                let mut a = Mlp::new(c.clone(), inputs);
                a.vs.copy(&current.vs).is_ok().then_some(a)
            })
            .flatten();
        let interval_steps = (x.len().div_ceil(c.batch.max(1)) * epoch_step.max(1)).max(1) as f64;
        let mut step = 0usize;
        let xs = tensor(x);
        let ys =
            Tensor::from_slice(&y.iter().map(|v| *v as f32).collect::<Vec<_>>()).reshape([-1, 1]);
        let opt = match c.optimizer {
            Optimizer::Adam => nn::Adam {
                wd: c.l2,
                ..Default::default()
            }
            .build(&current.vs, c.learning_rate),
            Optimizer::Sgd => nn::Sgd {
                momentum: 0.9,
                wd: c.l2,
                ..Default::default()
            }
            .build(&current.vs, c.learning_rate),
        };
        let Ok(mut opt) = opt else {
            return Run {
                mlp: best,
                val_score: f64::NEG_INFINITY,
            };
        };
        let n = x.len() as i64;
        let mut best_score = f64::NEG_INFINITY;
        for epoch in 1..=c.epochs {
            let perm = Tensor::randperm(n, (Kind::Int64, Device::Cpu));
            let mut start = 0;
            while start < n {
                let len = (c.batch as i64).min(n - start);
                let idx = perm.narrow(0, start, len);
                let mut bx = xs.index_select(0, &idx);
                let mut by = ys.index_select(0, &idx);
                if c.mixup && len > 1 {
                    let other = Tensor::randperm(len, (Kind::Int64, Device::Cpu));
                    let lam = Tensor::rand([len, 1], (Kind::Float, Device::Cpu));
                    bx = &bx * &lam + bx.index_select(0, &other) * (1.0 - &lam);
                    by = &by * &lam + by.index_select(0, &other) * (1.0 - &lam);
                }
                if c.input_noise > 0.0 {
                    bx = &bx + bx.randn_like() * c.input_noise;
                }
                let out = current.nets[0].forward_t(&bx, true);
                let loss = match c.loss {
                    Loss::Mse => out.mse_loss(&by, tch::Reduction::Mean),
                    Loss::L1 => out.l1_loss(&by, tch::Reduction::Mean),
                };
                opt.backward_step(&loss);
                if let Some(a) = &average {
                    a.absorb(&current, averaging_decay(step, interval_steps));
                }
                step += 1;
                start += len;
            }
            if epoch % epoch_step.max(1) == 0 || epoch == c.epochs {
                let mut scored = average.as_ref().unwrap_or(&current);
                let refitted;
                if c.refit_output {
                    let mut copy = Mlp::new(c.clone(), inputs);
                    if copy.vs.copy(&scored.vs).is_ok() {
                        copy.nets[0].refit_output(&xs, y, &c);
                        refitted = copy;
                        scored = &refitted;
                    }
                }
                let s = score(&scored.predict(val_x));
                if s.is_finite() && s > best_score {
                    best_score = s;
                    if best.vs.copy(&scored.vs).is_ok() {
                        best.config.epochs = epoch;
                    }
                }
            }
        }
        Run {
            mlp: best,
            val_score: best_score,
        }
    }

    /// self ← decay · self + (1 − decay) · `iterate`, variable by variable
    /// (same configuration, so the same names).
    fn absorb(&self, iterate: &Mlp, decay: f64) {
        let src = iterate.vs.variables();
        tch::no_grad(|| {
            for (name, mut t) in self.vs.variables() {
                if let Some(s) = src.get(&name) {
                    let _ = t.g_mul_scalar_(decay);
                    let _ = t.g_add_(&(s * (1.0 - decay)));
                }
            }
        });
    }

    /// `members` single networks as one averaging ensemble (the epochs
    /// recorded are the first member's).
    fn ensemble(members: &[Mlp]) -> Option<Mlp> {
        let first = members.first()?;
        let config = MlpConfig {
            members: members.len(),
            ..first.config.clone()
        };
        let out = Mlp::new(config, first.inputs);
        let mut dst = out.vs.variables();
        tch::no_grad(|| {
            for (k, m) in members.iter().enumerate() {
                for (name, t) in m.vs.variables() {
                    let target = if members.len() == 1 {
                        name.clone()
                    } else {
                        format!("m{k}.{name}")
                    };
                    dst.get_mut(&target)?.copy_(&t);
                }
            }
            Some(())
        })?;
        Some(out)
    }

    /// Train each of `configs` (single networks, `grid.epoch_step`) and
    /// return the best by validation score with every (configuration,
    /// score) tried, in `configs`' order (None for no configuration).
    pub fn search_configs(
        grid: &Grid,
        configs: &[MlpConfig],
        x: &[Vec<f64>],
        y: &[f64],
        val_x: &[Vec<f64>],
        score: &dyn Fn(&[f64]) -> f64,
        seed: u64,
    ) -> Option<(Mlp, f64, Tried)> {
        tch::set_num_threads(1);
        let mut best: Option<Run> = None;
        let mut tried = vec![];
        for c in configs {
            let run = Mlp::train(c, x, y, val_x, score, grid.epoch_step, seed);
            tried.push((run.mlp.config.clone(), run.val_score));
            if best.as_ref().is_none_or(|b| run.val_score > b.val_score) {
                best = Some(run);
            }
        }
        let best = best?;
        Some((best.mlp, best.val_score, tried))
    }

    /// With `grid.ensemble` > 1, `best` (validation score `single`) is
    /// trained again from `grid.ensemble − 1` more seeds (for at most its
    /// chosen epochs, each member keeping its own best validation epoch) and
    /// the average kept when the validation fold scores it at least as well
    /// as the single network. The ensemble's score is appended to `tried`.
    #[allow(clippy::too_many_arguments)]
    pub fn ensemble_of(
        grid: &Grid,
        best: Mlp,
        single: f64,
        x: &[Vec<f64>],
        y: &[f64],
        val_x: &[Vec<f64>],
        score: &dyn Fn(&[f64]) -> f64,
        seed: u64,
        tried: &mut Vec<(MlpConfig, f64)>,
    ) -> Mlp {
        if grid.ensemble <= 1 {
            return best;
        }
        // Members train for the epochs chosen on validation (each keeps
        // its best scored epoch up to there).
        let c = best.config.clone();
        let mut members = vec![];
        for k in 1..grid.ensemble as u64 {
            members.push(
                Mlp::train(
                    &c,
                    x,
                    y,
                    val_x,
                    score,
                    grid.epoch_step,
                    seed.wrapping_add(k),
                )
                .mlp,
            );
        }
        members.insert(0, best);
        let Some(ens) = Mlp::ensemble(&members) else {
            return members.swap_remove(0);
        };
        let s = score(&ens.predict(val_x));
        tried.push((ens.config.clone(), s));
        if grid.ensemble_always || (s.is_finite() && s >= single) {
            ens
        } else {
            members.swap_remove(0)
        }
    }

    /// Grid search: train every configuration on the training rows, score on
    /// the validation rows only, return the best model with every score
    /// (None for an empty grid), then [`Mlp::ensemble_of`] it.
    pub fn search(
        grid: &Grid,
        x: &[Vec<f64>],
        y: &[f64],
        val_x: &[Vec<f64>],
        score: &dyn Fn(&[f64]) -> f64,
        seed: u64,
    ) -> Option<(Mlp, Vec<(MlpConfig, f64)>)> {
        let (best, single, mut tried) =
            Mlp::search_configs(grid, &grid.configs(), x, y, val_x, score, seed)?;
        let m = Mlp::ensemble_of(grid, best, single, x, y, val_x, score, seed, &mut tried);
        Some((m, tried))
    }

    pub fn save(&self, path: &std::path::Path) -> Result<(), tch::TchError> {
        self.vs.save(path)
    }

    pub fn load(
        config: MlpConfig,
        inputs: i64,
        path: &std::path::Path,
    ) -> Result<Mlp, tch::TchError> {
        let mut m = Mlp::new(config, inputs);
        m.vs.load(path)?;
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_output_refit_leaves_no_better_output_layer_on_the_training_rows() {
        let x: Vec<Vec<f64>> = (0..80)
            .map(|i| vec![i as f64 / 80.0, ((i * 7) % 11) as f64 / 11.0])
            .collect();
        let y: Vec<f64> = x
            .iter()
            .map(|r| (3.0 * r[0]).sin() + 0.5 * r[1] + 0.3)
            .collect();
        let mse = |m: &Mlp| {
            m.predict(&x)
                .iter()
                .zip(&y)
                .map(|(p, t)| (p - t).powi(2))
                .sum::<f64>()
                / x.len() as f64
        };
        let score = |p: &[f64]| -p.iter().zip(&y).map(|(a, b)| (a - b).abs()).sum::<f64>();
        let c = Grid::tiny().configs().remove(0);
        assert_eq!((c.loss, c.l2), (Loss::Mse, 0.0));
        let plain = Mlp::train(&c, &x, &y, &x, &score, 10, 3).mlp;
        let refit = |m: &Mlp| {
            let mut copy = Mlp::new(m.config.clone(), m.inputs);
            copy.vs.copy(&m.vs).unwrap();
            copy.nets[0].refit_output(&tensor(&x), &y, &c);
            copy
        };
        // The refit is the least-squares output layer: the training error
        // falls (20 epochs leave the last iterate short of it), and a
        // second refit changes nothing.
        let once = refit(&plain);
        assert!(
            mse(&once) < mse(&plain),
            "{} vs {}",
            mse(&once),
            mse(&plain)
        );
        let twice = refit(&once);
        assert!((mse(&twice) - mse(&once)).abs() < 1e-6);
        // Training with the refit scores and keeps refitted weights.
        let with = MlpConfig {
            refit_output: true,
            ..c.clone()
        };
        let kept = Mlp::train(&with, &x, &y, &x, &score, 10, 3).mlp;
        assert!((mse(&refit(&kept)) - mse(&kept)).abs() < 1e-6);
        assert!(mse(&kept) < mse(&plain));
    }

    #[test]
    fn per_nf_heads_group_features_by_their_nf_prefix() {
        let names: Vec<String> = [
            "nf_router_cycles",
            "firewall_LLC-loads",
            "pkts",
            "nf_router_L1-dcache-loads",
            "firewall_cycles",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let h = Heads::per_nf(&names, HeadJoin::SoftMinimum);
        // nf_router first (its first feature comes first); `pkts` has no
        // NF prefix and goes to both heads.
        assert_eq!(h.inputs, vec![vec![0, 2, 3], vec![1, 2, 4]]);
        let none = Heads::per_nf(&["a".to_string(), "b".to_string()], HeadJoin::SoftSum);
        assert_eq!(none.inputs, vec![vec![0, 1]]);
        // Width 64 shared: 5 NFs 16 each, 3 NFs 32 (22 rounded up), 1 NF 64.
        let heads = |n: usize| Heads {
            inputs: vec![vec![0]; n],
            join: HeadJoin::SoftMinimum,
        };
        assert_eq!(
            [1, 2, 3, 5, 8].map(|n| heads(n).width(64)),
            [64, 32, 32, 16, 16]
        );
        assert_eq!(
            HeadJoin::for_target(crate::features::Target::Throughput),
            HeadJoin::SoftMinimum
        );
        assert_eq!(
            HeadJoin::for_target(crate::features::Target::Latency),
            HeadJoin::SoftSum
        );
    }

    #[test]
    fn the_joins_are_a_soft_minimum_and_a_soft_sum() {
        let h = Tensor::from_slice(&[0.5f32, 0.8, 2.0, 1.0, 1.0, 1.0]).reshape([2, 3]);
        let min = Vec::<f32>::try_from(HeadJoin::SoftMinimum.apply(&h).reshape([-1])).unwrap();
        // One head 0.3 above the lowest moves the minimum by < 0.005.
        assert!(min[0] < 0.5 && min[0] > 0.495, "{min:?}");
        // Three equal heads: τ · ln 3 below them.
        assert!((f64::from(min[1]) - (1.0 - SOFT_MINIMUM_TAU * 3f64.ln())).abs() < 1e-5);
        let sum = Vec::<f32>::try_from(HeadJoin::SoftSum.apply(&h).reshape([-1])).unwrap();
        let expect = (0.5f64.exp() + 0.8f64.exp() + 2f64.exp()).ln();
        assert!((f64::from(sum[0]) - expect).abs() < 1e-5, "{sum:?}");
    }

    /// A chain's rate is the minimum of its NFs' rates, each set by that
    /// NF's own counters. Trained on rows with one NF throttled at a time,
    /// the per-NF network answers rows with two NFs throttled at once
    /// (each at a level seen in training) with their minimum; the shipped
    /// network, over every counter at once, does not.
    #[test]
    fn per_nf_heads_predict_two_throttled_nfs_from_one_at_a_time() {
        const NFS: usize = 3;
        // A fixed, deterministic jitter in [-0.02, 0.02].
        let jitter = |k: usize| ((k * 7919 + 13) % 101) as f64 / 101.0 * 0.04 - 0.02;
        // Each NF's two counters: its capacity s (1 free, ½ or ¼ throttled)
        // seen through its cycles and its work per sample.
        let row = |s: [f64; NFS], k: usize| -> Vec<f64> {
            (0..NFS)
                .flat_map(|i| {
                    [
                        s[i] + jitter(k * 6 + 2 * i),
                        0.6 * s[i] * s[i] + 0.2 + jitter(k * 6 + 2 * i + 1),
                    ]
                })
                .collect()
        };
        let rate = |s: [f64; NFS]| s.iter().copied().fold(f64::INFINITY, f64::min);
        let levels = [0.5, 0.25];
        let (mut x, mut y) = (vec![], vec![]);
        let mut k = 0;
        for rep in 0..40 {
            let mut states = vec![[1.0; NFS]];
            for i in 0..NFS {
                for &l in &levels {
                    let mut s = [1.0; NFS];
                    s[i] = l;
                    states.push(s);
                }
            }
            for s in states {
                if rep < 20 || s != [1.0; NFS] {
                    x.push(row(s, k));
                    y.push(rate(s));
                    k += 1;
                }
            }
        }
        let (mut both_x, mut both_y) = (vec![], vec![]);
        for i in 0..NFS {
            for j in i + 1..NFS {
                for &a in &levels {
                    for &b in &levels {
                        let mut s = [1.0; NFS];
                        s[i] = a;
                        s[j] = b;
                        both_x.push(row(s, k));
                        both_y.push(rate(s));
                        k += 1;
                    }
                }
            }
        }
        let names: Vec<String> = (0..NFS)
            .flat_map(|i| [format!("nf{i}_cycles"), format!("nf{i}_instructions")])
            .collect();
        let score = |p: &[f64]| -p.iter().zip(&y).map(|(a, b)| (a - b).abs()).sum::<f64>();
        let mut c = Grid::tiny().configs().remove(0);
        c.width = 64;
        c.dropout = 0.0;
        c.epochs = 200;
        c.bounded_output = true;
        c.refit_output = true;
        let error = |c: &MlpConfig| -> (f64, f64) {
            let m = Mlp::train(c, &x, &y, &x, &score, 10, 11).mlp;
            let mae = |x: &[Vec<f64>], y: &[f64]| {
                m.predict(x)
                    .iter()
                    .zip(y)
                    .map(|(p, t)| (p - t).abs())
                    .sum::<f64>()
                    / y.len() as f64
            };
            (mae(&x, &y), mae(&both_x, &both_y))
        };
        let (shipped_train, shipped) = error(&c);
        let heads = c.shaped(true, &names, crate::features::Target::Throughput);
        assert_eq!(heads.heads.as_ref().unwrap().inputs.len(), NFS);
        let (heads_train, per_nf) = error(&heads);
        // Both fit the rows they were trained on.
        assert!(
            shipped_train < 0.03 && heads_train < 0.03,
            "{shipped_train} {heads_train}"
        );
        // Targets are ¼ or ½ on the two-throttled rows: the per-NF heads
        // within 0.03 of the minimum (0.006–0.009 measured with four
        // settings of bound, refit, rate and epochs), the shipped network
        // not within 0.05 (0.06–0.15 measured with the same settings).
        assert!(per_nf < 0.03, "per-NF heads: mean error {per_nf}");
        assert!(shipped > 0.05, "shipped network: mean error {shipped}");
    }

    #[test]
    fn output_bound_widens_the_targets_range_by_the_margin() {
        let b = output_bound(&[1.0, 3.0, 2.0]).unwrap();
        assert!((b[0] - (1.0 - 2.0 * OUTPUT_BOUND_MARGIN)).abs() < 1e-12);
        assert!((b[1] - (3.0 + 2.0 * OUTPUT_BOUND_MARGIN)).abs() < 1e-12);
        assert_eq!(output_bound(&[2.0, 2.0]), None);
        assert_eq!(output_bound(&[]), None);
    }

    /// A saturating output stays within the training targets' range (plus
    /// the margin) on rows far outside the inputs it saw, where a linear
    /// output runs on; it is trained through, refitted, saved and reloaded
    /// with its bound.
    #[test]
    fn a_bounded_output_saturates_beyond_the_training_rows_and_reloads() {
        // A rising slope into a plateau (half the rows at 1).
        let x: Vec<Vec<f64>> = (0..120)
            .map(|i| vec![i as f64 / 60.0 - 1.0, ((i * 7) % 11) as f64 / 11.0])
            .collect();
        let y: Vec<f64> = x.iter().map(|r| r[0].min(0.0) + 1.0).collect();
        let score = |p: &[f64]| -p.iter().zip(&y).map(|(a, b)| (a - b).abs()).sum::<f64>();
        let far: Vec<Vec<f64>> = (1..=5).map(|k| vec![-20.0 * k as f64, 0.5]).collect();
        let mut c = Grid::tiny().configs().remove(0);
        c.epochs = 60;
        let plain = Mlp::train(&c, &x, &y, &x, &score, 10, 5).mlp;
        c.bounded_output = true;
        c.refit_output = true;
        let bounded = Mlp::train(&c, &x, &y, &x, &score, 10, 5).mlp;
        let [lo, hi] = bounded.config.output_bound.unwrap();
        assert_eq!(Some([lo, hi]), output_bound(&y));
        let p = bounded.predict(&far);
        // The network computes in f32: its bound is the f64 one to 1e-6.
        let within = |v: &f64| (lo - 1e-6..=hi + 1e-6).contains(v);
        assert!(p.iter().all(within), "{p:?} vs [{lo}, {hi}]");
        let q = plain.predict(&far);
        assert!(q.iter().any(|v| !within(v)), "{q:?}");
        // It still fits the training rows.
        let mae = bounded
            .predict(&x)
            .iter()
            .zip(&y)
            .map(|(a, b)| (a - b).abs())
            .sum::<f64>()
            / y.len() as f64;
        assert!(mae < 0.1, "{mae}");
        // The refit through the logistic: a second one changes nothing.
        let mut copy = Mlp::new(bounded.config.clone(), 2);
        copy.vs.copy(&bounded.vs).unwrap();
        copy.nets[0].refit_output(&tensor(&x), &y, &bounded.config);
        for (a, b) in copy.predict(&x).iter().zip(bounded.predict(&x)) {
            assert!((a - b).abs() < 1e-3, "{a} vs {b}");
        }
        // The bound travels with the configuration (model.json).
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.safetensors");
        bounded.save(&path).unwrap();
        let config: MlpConfig =
            serde_json::from_str(&serde_json::to_string(&bounded.config).unwrap()).unwrap();
        let back = Mlp::load(config, 2, &path).unwrap();
        assert_eq!(back.predict(&far), p);
    }

    #[test]
    fn an_ensemble_predicts_the_members_mean_and_reloads_identically() {
        let x: Vec<Vec<f64>> = (0..40)
            .map(|i| vec![i as f64 / 40.0, (i % 7) as f64])
            .collect();
        let y: Vec<f64> = x.iter().map(|r| r[0] * 2.0 - r[1] * 0.1).collect();
        let mut c = Grid::tiny().configs().remove(0);
        c.loss = Loss::L1;
        let score = |p: &[f64]| -p.iter().zip(&y).map(|(a, b)| (a - b).abs()).sum::<f64>();
        let members: Vec<Mlp> = (0..3)
            .map(|s| Mlp::train(&c, &x, &y, &x, &score, 10, s).mlp)
            .collect();
        let ens = Mlp::ensemble(&members).unwrap();
        assert_eq!(ens.config.members, 3);
        let each: Vec<Vec<f64>> = members.iter().map(|m| m.predict(&x)).collect();
        assert_ne!(each[0], each[1], "members from different seeds differ");
        for (i, p) in ens.predict(&x).iter().enumerate() {
            let mean = (each[0][i] + each[1][i] + each[2][i]) / 3.0;
            assert!((p - mean).abs() < 1e-5, "row {i}: {p} vs {mean}");
        }
        // The first k members alone: what an ensemble of k would predict.
        for (i, p) in ens.predict_first(&x, 1).iter().enumerate() {
            assert!(
                (p - each[0][i]).abs() < 1e-5,
                "row {i}: {p} vs {}",
                each[0][i]
            );
        }
        for (i, p) in ens.predict_first(&x, 2).iter().enumerate() {
            let mean = (each[0][i] + each[1][i]) / 2.0;
            assert!((p - mean).abs() < 1e-5, "row {i}: {p} vs {mean}");
        }
        assert_eq!(ens.predict_first(&x, 99), ens.predict(&x));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("e.safetensors");
        ens.save(&path).unwrap();
        let back = Mlp::load(ens.config.clone(), 2, &path).unwrap();
        assert_eq!(back.predict(&x), ens.predict(&x));
    }

    #[test]
    fn ensemble_always_keeps_the_members_the_validation_fold_would_drop() {
        let x: Vec<Vec<f64>> = (0..40).map(|i| vec![i as f64 / 40.0]).collect();
        let y: Vec<f64> = x.iter().map(|r| r[0] * 2.0).collect();
        let score = |p: &[f64]| -p.iter().zip(&y).map(|(a, b)| (a - b).abs()).sum::<f64>();
        let mut grid = Grid::tiny();
        grid.ensemble = 3;
        let c = grid.configs().remove(0);
        for (always, members) in [(false, 1), (true, 3)] {
            grid.ensemble_always = always;
            let best = Mlp::train(&c, &x, &y, &x, &score, 10, 7).mlp;
            let mut tried = vec![];
            // A single network no ensemble can match on validation.
            let m = Mlp::ensemble_of(
                &grid,
                best,
                f64::INFINITY,
                &x,
                &y,
                &x,
                &score,
                7,
                &mut tried,
            );
            assert_eq!(m.config.members, members, "ensemble_always = {always}");
            assert_eq!(tried.len(), 1, "the ensemble's score is recorded");
        }
    }

    #[test]
    fn averaging_decay_warms_up_then_holds_one_scoring_interval() {
        // Early steps: (1 + t)/(10 + t), so the initial weights fade fast.
        assert!((averaging_decay(0, 200.0) - 0.1).abs() < 1e-12);
        assert!((averaging_decay(10, 200.0) - 11.0 / 20.0).abs() < 1e-12);
        // Later: the horizon of one scoring interval, 1 − 1/steps.
        assert!((averaging_decay(100_000, 200.0) - (1.0 - 1.0 / 200.0)).abs() < 1e-12);
        // Monotone, and never 1 (the average keeps following the iterates).
        let d: Vec<f64> = (0..2000).map(|t| averaging_decay(t, 200.0)).collect();
        assert!(d.windows(2).all(|w| w[0] <= w[1]));
        assert!(d.iter().all(|&v| v < 1.0));
        // A degenerate interval does not divide by zero.
        assert!(averaging_decay(5, 0.0).is_finite());
    }

    #[test]
    fn absorb_moves_the_average_toward_the_iterate() {
        let c = Grid::tiny().configs().remove(0);
        let (a, b) = (Mlp::new(c.clone(), 3), Mlp::new(c, 3));
        let x = vec![vec![0.3, -1.0, 2.0], vec![1.0, 0.5, -0.2]];
        let (pa, pb) = (a.predict(&x), b.predict(&x));
        assert_ne!(pa, pb, "two initialisations differ");
        a.absorb(&b, 1.0);
        assert_eq!(a.predict(&x), pa, "decay 1 keeps the average");
        a.absorb(&b, 0.0);
        assert_eq!(a.predict(&x), pb, "decay 0 takes the iterate");
    }

    /// The failure iterate averaging answers: with a large constant step,
    /// the last iterate misses a plateau (many rows with one target) by a
    /// common offset; the average of the iterates fits it closer.
    #[test]
    fn iterate_averaging_fits_a_plateau_the_last_iterate_misses() {
        // Half the rows on a plateau (target 1), half on a slope below it.
        let x: Vec<Vec<f64>> = (0..200)
            .map(|i| vec![i as f64 / 100.0 - 1.0, ((i * 37) % 11) as f64 / 5.0 - 1.0])
            .collect();
        let y: Vec<f64> = x.iter().map(|r| r[0].min(0.0) + 1.0).collect();
        let plateau: Vec<usize> = (0..x.len()).filter(|&i| x[i][0] >= 0.0).collect();
        let plateau_error = |p: &[f64]| {
            plateau.iter().map(|&i| (p[i] - y[i]).abs()).sum::<f64>() / plateau.len() as f64
        };
        // Score only the last epoch, so both keep what training ends with.
        let last = |_: &[f64]| 0.0;
        let mut c = Grid::tiny().configs().remove(0);
        c.learning_rate = 0.05;
        c.dropout = 0.0;
        c.epochs = 60;
        let mut errors = vec![];
        for average in [false, true] {
            c.weight_average = average;
            let e: f64 = (0..3)
                .map(|seed| {
                    plateau_error(&Mlp::train(&c, &x, &y, &x, &last, 60, seed).mlp.predict(&x))
                })
                .sum();
            errors.push(e / 3.0);
        }
        assert!(
            errors[1] < errors[0] * 0.8,
            "plateau error with averaging {} vs last iterate {}",
            errors[1],
            errors[0]
        );
    }
}
