//! Why nfc's GBR and scikit-learn's GradientBoostingRegressor differ on the
//! bench's splits: forust-ml refitted on the exported splits
//! (`target/nfc-bench/predictor/splits/manifest.json`, written by
//! `cargo xtask bench predictor`) with one difference to scikit-learn
//! removed at a time. Each variant makes the same choice as
//! `model::train` (4 settings × the Pearson selection and every
//! non-constant counter, on the validation fold) and prints the chosen
//! validation accuracy and the test accuracy per split.
//!
//! `cargo run --profile bench -p nfc-predictor --example gbr_diag [manifest]`
//!
//! Variants: `nbins` 256 (forust's default, a histogram of quantile cuts)
//! or 65535 (every distinct value a candidate cut: scikit-learn's exact
//! splits); `l2` 1 (forust's default leaf shrinkage λ) or 0 (scikit-learn
//! has none); the target ln y (nfc) or y (the scikit-learn script), both
//! standardised. The first line per split is `model::train` itself, which
//! the first variant must reproduce.

use forust_ml::data::Matrix;
use forust_ml::gradientbooster::GradientBooster;
use forust_ml::objective::ObjectiveType;
use nfc_predictor::features::{Frame, Target};
use nfc_predictor::metrics::Metrics;
use nfc_predictor::mlp::Grid;
use nfc_predictor::model::{train, ModelKind, TrainOptions, DEFAULT_PEARSON_THRESHOLD};
use std::path::{Path, PathBuf};

fn load(path: &Path) -> Frame {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let header: Vec<String> = lines
        .next()
        .expect("header")
        .split(',')
        .map(str::to_string)
        .collect();
    let k = header.len() - 1;
    let mut x = vec![];
    let mut y = vec![];
    for l in lines {
        let v: Vec<f64> = l.split(',').map(|c| c.parse().expect("number")).collect();
        y.push(v[k]);
        x.push(v[..k].to_vec());
    }
    let n = y.len();
    Frame {
        features: header[..k].to_vec(),
        x,
        y,
        censored: vec![false; n],
        experiment: vec![0; n],
        line: (0..n).collect(),
    }
}

#[derive(Clone, Copy, Debug)]
struct Variant {
    nbins: u16,
    l2: f32,
    log: bool,
}

fn cols(f: &Frame, k: usize) -> Vec<Vec<f64>> {
    f.x.iter().map(|r| r[..k].to_vec()).collect()
}

fn fit_predict(
    v: Variant,
    depth: usize,
    lr: f32,
    x: &[Vec<f64>],
    z: &[f64],
    px: &[&[Vec<f64>]],
) -> Vec<Vec<f64>> {
    let m = |x: &[Vec<f64>]| {
        let (rows, c) = (x.len(), x[0].len());
        let mut d = Vec::with_capacity(rows * c);
        for j in 0..c {
            d.extend(x.iter().map(|r| r[j]));
        }
        (d, rows, c)
    };
    let (d, r, c) = m(x);
    let mut g = GradientBooster::default()
        .set_objective_type(ObjectiveType::SquaredLoss)
        .set_iterations(300)
        .set_learning_rate(lr)
        .set_max_depth(depth)
        .set_nbins(v.nbins)
        .set_l2(v.l2)
        .set_seed(2024)
        .set_parallel(false);
    g.fit_unweighted(&Matrix::new(&d, r, c), z, None)
        .expect("fit");
    px.iter()
        .map(|x| {
            let (d, r, c) = m(x);
            g.predict(&Matrix::new(&d, r, c), false)
        })
        .collect()
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let manifest = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/nfc-bench/predictor/splits/manifest.json"));
    // A quick bench run (`NFC_PREDICTOR_BENCH_QUICK=1`) exports the splits
    // but writes no manifest: then one is made from the directory (the
    // Pearson selection recomputed on the training fold, as the bench does)
    // and written for gbr_diag_sklearn.py.
    let entries: Vec<serde_json::Value> = if manifest.exists() {
        serde_json::from_str(&std::fs::read_to_string(&manifest).expect("manifest")).expect("json")
    } else {
        let dir = manifest.parent().expect("splits dir");
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(dir)
            .expect("splits dir")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_dir())
            .collect();
        dirs.sort();
        let v: Vec<serde_json::Value> = dirs
            .iter()
            .map(|d| {
                let tr = load(&d.join("train.csv"));
                let k = nfc_predictor::features::select_pearson(&tr, DEFAULT_PEARSON_THRESHOLD)
                    .selected
                    .len();
                let name = d.file_name().unwrap_or_default().to_string_lossy().to_string();
                serde_json::json!({"dir": d, "scenario": name, "split": "", "pearson_columns": k, "unfiltered": true})
            })
            .collect();
        std::fs::write(&manifest, serde_json::to_string(&v).expect("json"))
            .expect("write manifest");
        v
    };
    // GBR_DIAG_SET=choice: the four (bins × target) cells, and per bin
    // setting the target chosen per fit on the validation fold.
    let choice = std::env::var("GBR_DIAG_SET").is_ok_and(|v| v == "choice");
    let v = |nbins, l2, log| Variant { nbins, l2, log };
    let variants: Vec<Variant> = if choice {
        vec![
            v(256, 1.0, true),
            v(256, 1.0, false),
            v(65535, 1.0, true),
            v(65535, 1.0, false),
        ]
    } else {
        vec![
            v(256, 1.0, true),
            v(65535, 1.0, true),
            v(256, 0.0, true),
            v(256, 1.0, false),
            v(65535, 0.0, true),
            v(65535, 0.0, false),
        ]
    };
    // (val, test) of the per-fit target choice, 256 bins and exact.
    let mut chosen_sums = [(0.0, 0.0); 2];
    let mut sums = vec![(0.0, 0.0); variants.len()];
    for e in &entries {
        let dir = PathBuf::from(e["dir"].as_str().expect("dir"));
        let (tr, va, te) = (
            load(&dir.join("train.csv")),
            load(&dir.join("validation.csv")),
            load(&dir.join("test.csv")),
        );
        let va = if va.y.is_empty() { tr.clone() } else { va };
        let k = e["pearson_columns"].as_u64().expect("pearson_columns") as usize;
        // model::train as the bench calls it (sanity: variant 0 must match).
        let opts = TrainOptions {
            kind: ModelKind::Gbr,
            target: Target::Throughput,
            grid: Grid::standard(),
            pearson_threshold: DEFAULT_PEARSON_THRESHOLD,
            seed: 2024,
        };
        let m = train(&tr, &va, vec![], &opts).expect("train");
        let lib = Metrics::compute(&m.predict(&te).expect("predict"), &te.y).accuracy;
        println!(
            "{} / {}: train {} val {} test {}; library GBR val {:.4} test {:.4} {:?} {} features",
            e["scenario"].as_str().unwrap_or(""),
            e["split"].as_str().unwrap_or(""),
            tr.len(),
            va.len(),
            te.len(),
            m.meta
                .search
                .as_ref()
                .map_or(f64::NAN, |s| s.best_validation_accuracy),
            lib,
            m.meta.gbr_settings,
            m.meta.features.len()
        );
        let all = tr.features.len();
        let sets: Vec<usize> = if k < all { vec![k, all] } else { vec![all] };
        let mut results: Vec<(f64, f64)> = vec![];
        for (vi, v) in variants.iter().enumerate() {
            let z: Vec<f64> =
                tr.y.iter()
                    .map(|y| if v.log { y.ln() } else { *y })
                    .collect();
            let mean = z.iter().sum::<f64>() / z.len() as f64;
            let sd = (z.iter().map(|a| (a - mean).powi(2)).sum::<f64>() / z.len() as f64).sqrt();
            let zs: Vec<f64> = z.iter().map(|a| (a - mean) / sd).collect();
            let back = |p: &[f64]| -> Vec<f64> {
                p.iter()
                    .map(|a| {
                        let u = a * sd + mean;
                        if v.log {
                            u.exp()
                        } else {
                            u
                        }
                    })
                    .collect()
            };
            let mut best: Option<(f64, f64, String)> = None;
            for &c in &sets {
                let (x, vx, tx) = (cols(&tr, c), cols(&va, c), cols(&te, c));
                for &(depth, lr) in &[(3, 0.1), (5, 0.1), (3, 0.05), (5, 0.05)] {
                    let p = fit_predict(*v, depth, lr, &x, &zs, &[&vx, &tx]);
                    let sv = Metrics::compute(&back(&p[0]), &va.y).accuracy;
                    let st = Metrics::compute(&back(&p[1]), &te.y).accuracy;
                    if best.as_ref().is_none_or(|b| sv > b.0) {
                        best = Some((sv, st, format!("d{depth} lr{lr} {c}f")));
                    }
                }
            }
            let (sv, st, what) = best.expect("grid");
            results.push((sv, st));
            sums[vi].0 += sv;
            sums[vi].1 += st;
            println!(
                "   nbins {:>5} l2 {} {:<5} val {sv:.4} test {st:.4} ({what})",
                v.nbins,
                v.l2,
                if v.log { "ln y" } else { "y" }
            );
        }
        if choice {
            for b in 0..2 {
                let (l, y) = (results[2 * b], results[2 * b + 1]);
                let c = if y.0 > l.0 { y } else { l };
                chosen_sums[b].0 += c.0;
                chosen_sums[b].1 += c.1;
                println!(
                    "   {} bins, target chosen: {} val {:.4} test {:.4}",
                    if b == 0 { "256" } else { "exact" },
                    if y.0 > l.0 { "y" } else { "ln y" },
                    c.0,
                    c.1
                );
            }
        }
    }
    let n = entries.len().max(1) as f64;
    if choice {
        for (b, (sv, st)) in chosen_sums.iter().enumerate() {
            println!(
                "MEAN {} bins, target chosen per fit on validation: val {:.4} test {:.4}",
                if b == 0 { "256" } else { "exact" },
                sv / n,
                st / n
            );
        }
    }
    for (vi, v) in variants.iter().enumerate() {
        println!(
            "MEAN nbins {:>5} l2 {} {:<5} over {} splits: val {:.4} test {:.4}",
            v.nbins,
            v.l2,
            if v.log { "ln y" } else { "y" },
            entries.len(),
            sums[vi].0 / n,
            sums[vi].1 / n
        );
    }
}
