//! Diagnosis of the leave-one-experiment-out rows (linear chain): per fold,
//! the validation and test accuracy of the MLP and GBR, the target range of
//! the training and test experiments, and how many test rows lie outside the
//! training fold's feature range.
//!
//! `cargo run --release -p nfc-predictor --example loeo_diag [scenario…]`
//! (scenarios: load, resource, both; default all).
//!
//! `DIAG_NESTED=1`: the remedy-selection mode (docs/predictor.md, "Choosing
//! remedies for extrapolation"): for every outer fold, only the inner
//! leave-one-experiment-out folds of its training experiments
//! (`split::inner_folds`) are trained and scored; the outer test rows are
//! never trained on, predicted or printed.

use nfc_predictor::data::{load_files, ConflictPolicy};
use nfc_predictor::features::{common_counters, Frame, Target};
use nfc_predictor::metrics::Metrics;
use nfc_predictor::mlp::{Activation, Grid, Loss, Optimizer};
use nfc_predictor::model::{project, train, ModelKind, TrainOptions, DEFAULT_PEARSON_THRESHOLD};
use nfc_predictor::split::Split;
use nfc_predictor::split::{inner_folds, leave_experiment_out, validate_by_experiment};
use std::path::{Path, PathBuf};

fn csvs(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "csv"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// The standard grid with `DIAG_*` overrides.
fn grid() -> Grid {
    let mut g = Grid::standard();
    let list = |k: &str| {
        std::env::var(k)
            .ok()
            .map(|v| v.split(',').map(str::to_string).collect::<Vec<_>>())
    };
    // A comma-separated list of numbers; a bad one stops the tool, naming it.
    fn numbers<T: std::str::FromStr>(k: &str) -> Option<Vec<T>> {
        std::env::var(k).ok().map(|v| {
            v.split(',')
                .map(|s| {
                    s.parse()
                        .unwrap_or_else(|_| panic!("{k}: not a number: {s}"))
                })
                .collect()
        })
    }
    if let Some(v) = numbers("DIAG_DROPOUT") {
        g.dropout = v;
    }
    if let Some(v) = list("DIAG_LOSS") {
        g.loss = v
            .iter()
            .map(|s| if s == "l1" { Loss::L1 } else { Loss::Mse })
            .collect();
    }
    if let Some(v) = list("DIAG_OPT") {
        g.optimizer = v
            .iter()
            .map(|s| {
                if s == "sgd" {
                    Optimizer::Sgd
                } else {
                    Optimizer::Adam
                }
            })
            .collect();
    }
    if let Some(v) = numbers("DIAG_LR") {
        g.learning_rate = v;
    }
    if let Some(v) = numbers("DIAG_BATCH") {
        g.batch = v;
    }
    if let Some(v) = numbers("DIAG_DEPTH") {
        g.hidden_layers = v;
    }
    if let Ok(v) = std::env::var("DIAG_EPOCHS") {
        g.max_epochs = v.parse().expect("epochs");
    }
    if let Some(v) = list("DIAG_LOGX") {
        g.log_inputs = v.iter().map(|s| s == "1").collect();
    }
    if let Ok(v) = std::env::var("DIAG_UNFILTERED") {
        g.unfiltered = v.parse().expect("unfiltered");
    }
    if let Ok(v) = std::env::var("DIAG_ENSEMBLE") {
        g.ensemble = v.parse().expect("ensemble");
    }
    if let Some(v) = list("DIAG_ACT") {
        g.activation = v
            .iter()
            .map(|s| {
                if s == "tanh" {
                    Activation::Tanh
                } else {
                    Activation::Relu
                }
            })
            .collect();
    }
    if let Some(v) = numbers("DIAG_WIDTH") {
        g.width = v;
    }
    if let Some(v) = numbers("DIAG_L2") {
        g.l2 = v;
    }
    if let Some(v) = numbers("DIAG_NOISE") {
        g.input_noise = v;
    }
    if let Some(v) = list("DIAG_MIXUP") {
        g.mixup = v.iter().map(|s| s == "1").collect();
    }
    if let Some(v) = list("DIAG_SKIP") {
        g.linear_skip = v.iter().map(|s| s == "1").collect();
    }
    if let Ok(v) = std::env::var("DIAG_PERCYCLE") {
        g.per_cycle = v == "1";
    }
    if let Ok(v) = std::env::var("DIAG_AVERAGE") {
        g.weight_average = v == "1";
    }
    if let Ok(v) = std::env::var("DIAG_REFIT") {
        g.refit_output = v == "1";
    }
    if let Ok(v) = std::env::var("DIAG_BOUND") {
        g.bounded_output = v == "1";
    }
    // The eighth round's candidate: per-NF heads joined by a soft minimum
    // (soft sum for latency).
    if let Ok(v) = std::env::var("DIAG_BOTTLENECK") {
        g.per_nf_heads = v == "1";
    }
    if let Ok(v) = std::env::var("DIAG_ENSEMBLE_ALWAYS") {
        g.ensemble_always = v == "1";
    }
    g
}

/// Ensemble sizes scored from the same fits when the grid keeps every
/// member (`DIAG_ENSEMBLE_ALWAYS=1`, `DIAG_ENSEMBLE=K`): the shipped rule
/// (5 members, kept only when the validation fold scores them at least as
/// well as the single network), one network, and the first 5 and all K
/// members kept whatever the validation fold says. Member j is trained
/// from seed + j whatever K is, so the first 5 of K are the shipped grid's
/// 5. Every score has the shipped output clamp.
const VARIANTS: [&str; 4] = [
    "shipped (5, validation keeps)",
    "single",
    "5 always",
    "K always",
];

fn variant_scores(
    m: &mut nfc_predictor::model::TrainedModel,
    va: &Frame,
    te: &Frame,
) -> Option<[f64; 4]> {
    let k = m.meta.mlp.as_ref()?.members;
    if k < 5 {
        return None;
    }
    // The validation choice as training makes it: unclamped output.
    let range = m.meta.target_range.take();
    let va = va.measured();
    let val = |m: &nfc_predictor::model::TrainedModel, k: usize| {
        m.predict_members(&va, k)
            .map(|p| Metrics::compute(&p, &va.y).accuracy)
            .unwrap_or(f64::NAN)
    };
    let (s1, s5) = (val(m, 1), val(m, 5));
    m.meta.target_range = range;
    let test = |k: usize| {
        m.predict_members(te, k)
            .map(|p| Metrics::compute(&p, &te.y).accuracy)
            .unwrap_or(f64::NAN)
    };
    let shipped = if s5.is_finite() && s5 >= s1 {
        test(5)
    } else {
        test(1)
    };
    Some([shipped, test(1), test(5), test(k)])
}

/// `DIAG_NESTED=1`: mean inner-fold test accuracy per kind over every
/// outer fold's inner folds; the outer test folds are not used.
fn nested(
    name: &str,
    frame: &Frame,
    folds: &[Split],
    kinds: &[ModelKind],
    all: &mut [Vec<(f64, f64)>],
    all_variants: &mut Vec<[f64; 4]>,
) {
    let mut sums = vec![vec![]; kinds.len()];
    let mut variant_sums: Vec<[f64; 4]> = vec![];
    for (k, outer) in folds.iter().enumerate() {
        let inner = inner_folds(frame, outer, 4, 2024);
        for (ki, kind) in kinds.iter().enumerate() {
            let t = std::time::Instant::now();
            let mut accs = vec![];
            let mut clamped = vec![];
            let mut variants: Vec<[f64; 4]> = vec![];
            for s in &inner {
                let (tr, va, te) = (
                    frame.subset(&s.train),
                    frame.subset(&s.validation),
                    frame.subset(&s.test).measured(),
                );
                let opts = TrainOptions {
                    kind: *kind,
                    target: target(),
                    grid: grid(),
                    pearson_threshold: DEFAULT_PEARSON_THRESHOLD,
                    seed: 2024,
                };
                let mut m = train(&tr, &va, vec![], &opts).expect("train");
                let p = m.predict(&te).expect("predict");
                accs.push(Metrics::compute(&p, &te.y).accuracy);
                if let Some(v) = variant_scores(&mut m, &va, &te) {
                    variants.push(v);
                }
                // The same predictions clamped to the training fold's
                // target range (the registered output-clamp candidate).
                let lo = tr.y.iter().copied().fold(f64::INFINITY, f64::min);
                let hi = tr.y.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let pc: Vec<f64> = p.iter().map(|v| v.clamp(lo, hi)).collect();
                clamped.push(Metrics::compute(&pc, &te.y).accuracy);
            }
            let mean = accs.iter().sum::<f64>() / accs.len().max(1) as f64;
            let cmean = clamped.iter().sum::<f64>() / clamped.len().max(1) as f64;
            println!(
                "{name} outer fold {k} {:<4} inner {} mean {mean:.4} | output clamped {} mean {cmean:.4} ({:.0}s)",
                kind.name(),
                accs.iter()
                    .map(|a| format!("{a:.3}"))
                    .collect::<Vec<_>>()
                    .join(" "),
                clamped
                    .iter()
                    .map(|a| format!("{a:.3}"))
                    .collect::<Vec<_>>()
                    .join(" "),
                t.elapsed().as_secs_f64()
            );
            sums[ki].push((mean, cmean));
            all[ki].push((mean, cmean));
            if !variants.is_empty() && variants.len() == inner.len() {
                let n = variants.len() as f64;
                let mut v = [0.0; 4];
                for r in &variants {
                    for (a, b) in v.iter_mut().zip(r) {
                        *a += b / n;
                    }
                }
                println!(
                    "{name} outer fold {k} {:<4} ensembles: {}",
                    kind.name(),
                    VARIANTS
                        .iter()
                        .zip(v)
                        .map(|(n, s)| format!("{n} {s:.4}"))
                        .collect::<Vec<_>>()
                        .join(" | ")
                );
                variant_sums.push(v);
                all_variants.push(v);
            }
        }
    }
    print_variant_means(&format!("{name} nested"), &variant_sums);
    for (ki, kind) in kinds.iter().enumerate() {
        let n = sums[ki].len().max(1) as f64;
        println!(
            "{name} {} nested mean {:.4} (output clamped {:.4})",
            kind.name(),
            sums[ki].iter().map(|s| s.0).sum::<f64>() / n,
            sums[ki].iter().map(|s| s.1).sum::<f64>() / n
        );
    }
}

fn print_variant_means(label: &str, v: &[[f64; 4]]) {
    if v.is_empty() {
        return;
    }
    let n = v.len() as f64;
    println!(
        "{label} ensembles over {} outer folds: {}",
        v.len(),
        VARIANTS
            .iter()
            .enumerate()
            .map(|(i, name)| format!("{name} {:.4}", v.iter().map(|r| r[i]).sum::<f64>() / n))
            .collect::<Vec<_>>()
            .join(" | ")
    );
}

/// `DIAG_TARGET=latency`: the latency model (scored on measured samples
/// only, as the bench does); default throughput.
fn target() -> Target {
    match std::env::var("DIAG_TARGET").as_deref() {
        Ok("latency") => Target::Latency,
        _ => Target::Throughput,
    }
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let data = std::env::var_os("NFC_ONVM_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../shared/data/onvm"));
    let load = csvs(&data.join("linear"));
    let res = csvs(&data.join("linear/datasets"));
    let want: Vec<String> = std::env::args().skip(1).collect();
    let scen = [
        ("load", load.clone()),
        ("resource", res.clone()),
        ("both", [load, res].concat()),
    ];
    let kinds: Vec<ModelKind> = match std::env::var("DIAG_KINDS").as_deref() {
        Ok("mlp") => vec![ModelKind::Mlp],
        _ => vec![ModelKind::Mlp, ModelKind::Gbr],
    };
    let nested_mode = std::env::var("DIAG_NESTED").is_ok_and(|v| v == "1");
    let mut all = vec![vec![]; kinds.len()];
    let mut all_variants = vec![];
    for (name, files) in scen {
        if !want.is_empty() && !want.iter().any(|w| w == name) {
            continue;
        }
        let exps = load_files(&files, ConflictPolicy::Other).expect("data");
        let counters = common_counters(&exps);
        let frame = Frame::build(&exps, &counters, target()).expect("frame");
        let names: Vec<String> = exps.iter().map(|e| e.name.clone()).collect();
        let mut sums = vec![(0.0, 0.0); kinds.len()];
        let mut folds = leave_experiment_out(&frame, &names, 5, 2024);
        if std::env::var_os("DIAG_GROUPVAL").is_some() {
            folds = folds
                .iter()
                .map(|s| validate_by_experiment(&frame, s, 2024))
                .collect();
        }
        if nested_mode {
            nested(name, &frame, &folds, &kinds, &mut all, &mut all_variants);
            continue;
        }
        for (k, s) in folds.iter().enumerate() {
            let (tr, va, te) = (
                frame.subset(&s.train),
                frame.subset(&s.validation),
                frame.subset(&s.test).measured(),
            );
            let rng = |f: &Frame| {
                let lo = f.y.iter().copied().fold(f64::INFINITY, f64::min);
                let hi = f.y.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                format!("{lo:.0}..{hi:.0}")
            };
            print!("{name} fold {k}: train y {} test y {}", rng(&tr), rng(&te));
            for (ki, kind) in kinds.iter().enumerate() {
                let opts = TrainOptions {
                    kind: *kind,
                    target: target(),
                    grid: grid(),
                    pearson_threshold: DEFAULT_PEARSON_THRESHOLD,
                    seed: 2024,
                };
                let t = std::time::Instant::now();
                let m = train(&tr, &va, vec![], &opts).expect("train");
                let p = m.predict(&te).expect("predict");
                let mt = Metrics::compute(&p, &te.y);
                let mv = m.meta.validation.map_or(f64::NAN, |v| v.accuracy);
                // Test rows with a feature outside the training range.
                let f = project(&tr, &m.meta.features).expect("f");
                let g = project(&te, &m.meta.features).expect("g");
                let cols = f.features.len();
                let lo: Vec<f64> = (0..cols)
                    .map(|c| f.column(c).into_iter().fold(f64::INFINITY, f64::min))
                    .collect();
                let hi: Vec<f64> = (0..cols)
                    .map(|c| f.column(c).into_iter().fold(f64::NEG_INFINITY, f64::max))
                    .collect();
                let out =
                    g.x.iter()
                        .filter(|r| r.iter().enumerate().any(|(c, v)| *v < lo[c] || *v > hi[c]))
                        .count();
                let clipped: Vec<Vec<f64>> =
                    g.x.iter()
                        .map(|r| {
                            r.iter()
                                .enumerate()
                                .map(|(c, v)| v.clamp(lo[c], hi[c]))
                                .collect()
                        })
                        .collect();
                let pc = m.predict_raw(&clipped);
                let mc = Metrics::compute(&pc, &te.y);
                // Errors on the out-of-range rows vs the others.
                let (mut eo, mut no, mut ei, mut ni) = (0.0, 0, 0.0, 0);
                for (i, r) in g.x.iter().enumerate() {
                    let e = ((p[i] - te.y[i]) / te.y[i]).abs();
                    if r.iter().enumerate().any(|(c, v)| *v < lo[c] || *v > hi[c]) {
                        eo += e;
                        no += 1
                    } else {
                        ei += e;
                        ni += 1
                    }
                }
                print!(
                    "\n   {:<4} feats {:>2} val {:.3} test {:.3} (clipped {:.3}) r2 {:.2} | out-of-range rows {}/{} mre {:.3} vs in-range {:.3} | {:?} {:.0}s",
                    kind.name(), m.meta.features.len(), mv, mt.accuracy, mc.accuracy, mt.r2, out, te.len(),
                    eo / no.max(1) as f64, ei / ni.max(1) as f64,
                    m.meta.mlp.as_ref().map(|c| format!("{}x{} {:?} {:?} lr{} ep{}", c.hidden_layers, c.width, c.activation, c.optimizer, c.learning_rate, c.epochs) + &format!(" {:?} do{} m{} logx {}", c.loss, c.dropout, c.members, m.meta.log_inputs)).or(m.meta.gbr_settings.map(|g| format!("{g:?}"))).unwrap_or_default(),
                    t.elapsed().as_secs_f64()
                );
                sums[ki].0 += mv;
                sums[ki].1 += mt.accuracy;
            }
            println!();
        }
        for (ki, kind) in kinds.iter().enumerate() {
            println!(
                "{name} {}: mean val {:.3} mean test {:.3}",
                kind.name(),
                sums[ki].0 / folds.len() as f64,
                sums[ki].1 / folds.len() as f64
            );
        }
    }
    if nested_mode {
        print_variant_means("ALL", &all_variants);
        for (ki, kind) in kinds.iter().enumerate() {
            let n = all[ki].len().max(1) as f64;
            println!(
                "ALL {} nested mean over {} outer folds {:.4}, output clamped {:.4} (grid {:?})",
                kind.name(),
                all[ki].len(),
                all[ki].iter().map(|s| s.0).sum::<f64>() / n,
                all[ki].iter().map(|s| s.1).sum::<f64>() / n,
                grid()
            );
        }
    }
}
