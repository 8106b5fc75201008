//! `cargo xtask bench predictor`: every model on the published onvm data
//! (INFOCOM'24), one run, the same splits for every model, next to the
//! paper's figures; then scikit-learn's MLPRegressor and
//! GradientBoostingRegressor on the very same rows (exported to CSV) in a
//! venv this bench creates from PyPI.
//!
//! Data: `$NFC_ONVM_DATA`, else `<workspace>/../shared/data/onvm`.
//! `NFC_PREDICTOR_BENCH_QUICK=1`: tiny MLP grid, no scikit-learn (smoke
//! test of the bench, not a measurement).
//! Scenarios (all `*.csv` of a directory, not recursive):
//! - single VNF (bridge/), load stimulus — paper Fig. 8 scenario 1: MLP 97%,
//!   SLOMO (GBR) 95%, Dobrescu 83%;
//! - linear chain (linear/), load stimulus — paper Fig. 7a/b: 98% / 92%;
//! - linear chain (linear/datasets/), resource stimulus — paper: 83%;
//! - linear chain, load + resource stimulus (both) — paper scenario 3: 65%;
//! - trained on linear (load) / tested on DAG (Dag/dag-1/datasets/) — paper
//!   Fig. 9 (no number in the text).
//!
//! Resumable and parallel: every (scenario, split, model) fit is saved as a
//! model directory under `<out>/cache/<identity>/`, where the identity is a
//! SHA-256 of this bench executable, the data files and the grid choice, so
//! a run that is interrupted (the full grid takes hours on two cores) picks
//! up where it stopped, and a result is only ever reused by the very code
//! and data that produced it (a saved model predicts identically when
//! loaded). `NFC_PREDICTOR_BENCH_JOBS=n` (default: the number of CPUs, at
//! most 4) first runs n copies of the bench that take the fits from one
//! queue into the cache (`NFC_PREDICTOR_BENCH_SHARD=i/n`; training is
//! single-threaded anyway), then the report is assembled from the cache in
//! one process.
//! `NFC_PREDICTOR_BENCH_FRESH=1` ignores (and replaces) cached fits.
//!
//! Conflicted files (git merge-conflict markers) are read with the side
//! after `=======` (`ConflictPolicy::Other`): there the latency peak sits at
//! the load peak, and linear exp4's other side is the only one not a copy of
//! another file (README of the data).

use nfc_predictor::data::{load_files, ConflictPolicy, Experiment};
use nfc_predictor::explain::{pca, shapley};
use nfc_predictor::features::{common_counters, select_pearson, Frame, Target};
use nfc_predictor::metrics::Metrics;
use nfc_predictor::mlp::Grid;
use nfc_predictor::model::{
    project, train, ModelKind, TrainOptions, TrainedModel, DEFAULT_PEARSON_THRESHOLD,
};
use nfc_predictor::plot;
use nfc_predictor::split::{leave_experiment_out, random_60_20_20, Split};
use serde_json::json;
use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

const SEED: u64 = 2024;
const MAX_FOLDS: usize = 5;
const KINDS: [ModelKind; 4] = [
    ModelKind::Mlp,
    ModelKind::Gbr,
    ModelKind::Linear,
    ModelKind::Dobrescu,
];

struct Scenario {
    name: &'static str,
    target: Target,
    train: Vec<PathBuf>,
    /// Test-only files (transfer); empty: splits within `train`.
    test: Vec<PathBuf>,
    paper: &'static str,
}

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

/// One model's result on one split.
struct Row {
    scenario: String,
    split: String,
    kind: String,
    metrics: Metrics,
    train_s: f64,
    infer_us_per_sample: f64,
    features: usize,
    search: Option<(usize, f64)>,
}

fn short(name: &str) -> String {
    Path::new(name.split('#').next().unwrap_or(name))
        .file_name()
        .map(|f| {
            f.to_string_lossy().to_string()
                + name
                    .split_once('#')
                    .map(|(_, s)| format!("#{s}"))
                    .as_deref()
                    .unwrap_or("")
        })
        .unwrap_or_else(|| name.to_string())
}

fn write_csv(path: &Path, f: &Frame) {
    let mut s = f.features.join(",") + ",y\n";
    for (r, y) in f.x.iter().zip(&f.y) {
        for v in r {
            let _ = write!(s, "{v},");
        }
        let _ = writeln!(s, "{y}");
    }
    std::fs::write(path, s).expect("write split csv");
}

/// `NFC_PREDICTOR_BENCH_SHARD=i/n`: this process fits only every n-th unit
/// (from the i-th) into the cache and writes no report.
fn shard_from_env() -> Option<(usize, usize)> {
    let v = std::env::var("NFC_PREDICTOR_BENCH_SHARD").ok()?;
    let parsed = v.split_once('/').and_then(|(i, n)| {
        let (i, n) = (i.parse::<usize>().ok()?, n.parse::<usize>().ok()?);
        (n > 0 && i < n).then_some((i, n))
    });
    if parsed.is_none() {
        eprintln!("error: NFC_PREDICTOR_BENCH_SHARD={v}: expected i/n with i < n (e.g. 0/2)");
        std::process::exit(1);
    }
    parsed
}

/// What a cached fit must have been produced by: this executable, the
/// data files (names and bytes) and the grid choice.
fn run_identity(files: &[&PathBuf], quick: bool) -> String {
    let mut h = Sha256::new();
    match std::env::current_exe().and_then(std::fs::read) {
        Ok(exe) => h.update(&exe),
        // Without its own bytes no cached fit can be trusted: a fresh
        // identity every run.
        Err(_) => h.update(format!("{:?}", std::time::SystemTime::now()).as_bytes()),
    }
    h.update([u8::from(quick)]);
    let mut files: Vec<&PathBuf> = files.to_vec();
    files.sort();
    files.dedup();
    for f in files {
        h.update(f.to_string_lossy().as_bytes());
        h.update(std::fs::read(f).unwrap_or_default());
    }
    hex::encode(&h.finalize()[..12])
}

/// Runs `jobs` copies of this bench as shards and waits for them. The
/// shards share one queue: each takes the next unit nobody has claimed
/// (a file created exclusively under `claims`), so an expensive MLP fit
/// does not hold up a shard whose other units are done. A shard that fails
/// only leaves its units to the assembling run.
fn run_shards(jobs: usize, claims: &Path) {
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("predictor bench: cannot re-run itself ({e}); fitting in one process");
            return;
        }
    };
    if let Err(e) = std::fs::create_dir_all(claims) {
        eprintln!(
            "predictor bench: {}: {e}; fitting in one process",
            claims.display()
        );
        return;
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let children: Vec<_> = (0..jobs)
        .filter_map(|i| {
            std::process::Command::new(&exe)
                .args(&args)
                .env("NFC_PREDICTOR_BENCH_SHARD", format!("{i}/{jobs}"))
                .env("NFC_PREDICTOR_BENCH_CLAIMS", claims)
                .env_remove("NFC_PREDICTOR_BENCH_FRESH")
                .stdout(std::process::Stdio::null())
                .spawn()
                .map_err(|e| eprintln!("predictor bench: shard {i}/{jobs} did not start: {e}"))
                .ok()
                .map(|c| (i, c))
        })
        .collect();
    for (i, mut c) in children {
        match c.wait() {
            Ok(st) if st.success() => {}
            Ok(st) => eprintln!("predictor bench: shard {i}/{jobs} ended with {st}; the assembling run fits what it left"),
            Err(e) => eprintln!("predictor bench: shard {i}/{jobs}: {e}"),
        }
    }
    let _ = std::fs::remove_dir_all(claims);
}

/// In a shard: whether this process takes `unit` (nobody claimed it yet).
fn claim(claims: &Path, unit: &str) -> bool {
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(claims.join(unit))
        .is_ok()
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let data = std::env::var_os("NFC_ONVM_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../shared/data/onvm"));
    let out = std::env::var_os("NFC_BENCH_OUT")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/nfc-bench"))
        .join("predictor");
    if !data.join("bridge").is_dir() {
        eprintln!(
            "predictor bench: no onvm data in {} (set NFC_ONVM_DATA)",
            data.display()
        );
        std::process::exit(1);
    }
    std::fs::create_dir_all(out.join("splits")).expect("bench output dir");
    let quick = std::env::var_os("NFC_PREDICTOR_BENCH_QUICK").is_some();
    let grid = if quick {
        Grid::tiny()
    } else {
        Grid::standard()
    };
    let linear_load = csvs(&data.join("linear"));
    let linear_resource = csvs(&data.join("linear/datasets"));
    let scenarios = vec![
        Scenario {
            name: "single VNF (bridge), load stimulus",
            target: Target::Throughput,
            train: csvs(&data.join("bridge")),
            test: vec![],
            paper: "MLP 97%, SLOMO/GBR 95%, Dobrescu 83%",
        },
        Scenario {
            name: "linear chain, load stimulus",
            target: Target::Throughput,
            train: linear_load.clone(),
            test: vec![],
            paper: "MLP 98% (regular rate), 92% (random rate)",
        },
        Scenario {
            name: "linear chain, resource stimulus",
            target: Target::Throughput,
            train: linear_resource.clone(),
            test: vec![],
            paper: "MLP 83%",
        },
        Scenario {
            name: "linear chain, load + resource stimulus",
            target: Target::Throughput,
            train: [linear_load.clone(), linear_resource.clone()].concat(),
            test: vec![],
            paper: "MLP 65%",
        },
        Scenario {
            name: "trained on linear (load), tested on DAG",
            target: Target::Throughput,
            train: linear_load.clone(),
            test: csvs(&data.join("Dag/dag-1/datasets")),
            paper: "Fig. 9a (no number in the text)",
        },
        Scenario {
            name: "latency: single VNF (bridge)",
            target: Target::Latency,
            train: csvs(&data.join("bridge")),
            test: vec![],
            paper: "no bridge latency figure",
        },
        Scenario {
            name: "latency: linear chain, load stimulus",
            target: Target::Latency,
            train: linear_load.clone(),
            test: vec![],
            paper: "MLP 86%",
        },
        Scenario {
            name: "latency: trained on linear, tested on DAG",
            target: Target::Latency,
            train: linear_load,
            test: csvs(&data.join("Dag/dag-1/datasets")),
            paper: "MLP 79%",
        },
    ];
    let shard = shard_from_env();
    let claims = std::env::var_os("NFC_PREDICTOR_BENCH_CLAIMS").map(PathBuf::from);
    let all_files: Vec<&PathBuf> = scenarios
        .iter()
        .flat_map(|sc| sc.train.iter().chain(&sc.test))
        .collect();
    let identity = run_identity(&all_files, quick);
    let cache = out.join("cache").join(&identity);
    let fresh = std::env::var_os("NFC_PREDICTOR_BENCH_FRESH").is_some();
    if fresh && shard.is_none() {
        let _ = std::fs::remove_dir_all(&cache);
    }
    if shard.is_none() {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let jobs = match std::env::var("NFC_PREDICTOR_BENCH_JOBS") {
            Ok(v) => v.parse::<usize>().unwrap_or_else(|_| {
                eprintln!("error: NFC_PREDICTOR_BENCH_JOBS={v}: expected a number");
                std::process::exit(1);
            }),
            Err(_) => cpus.min(4),
        };
        eprintln!(
            "predictor bench: fits cached in {} ({} job{})",
            cache.display(),
            jobs,
            if jobs == 1 { "" } else { "s" }
        );
        if jobs > 1 {
            // Claims of this run only: a killed run's are left behind.
            let run = format!(
                "{}-{}",
                std::process::id(),
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos())
            );
            run_shards(jobs, &out.join("cache").join(".claims").join(run));
        }
    }
    let mut unit = 0usize;
    let started = Instant::now();
    let mut rows: Vec<Row> = vec![];
    let mut report = String::new();
    let mut censored_json = vec![];
    let mut exports = vec![];
    let _ = writeln!(report, "predictor bench: MLP grid {} configurations × ≤{} epochs (scored every {} on the validation fold), GBR 4 settings × 300 trees, Pearson |r| ≥ {DEFAULT_PEARSON_THRESHOLD}, seed {SEED}{}", grid.configs().len(), grid.max_epochs, grid.epoch_step, if quick { " (QUICK: tiny grid)" } else { "" });
    for (si, sc) in scenarios.iter().enumerate() {
        let train_exps = load_files(&sc.train, ConflictPolicy::Other).expect("load scenario data");
        let test_exps: Vec<Experiment> =
            load_files(&sc.test, ConflictPolicy::Other).expect("load scenario test data");
        let all_exps: Vec<Experiment> = train_exps.iter().chain(&test_exps).cloned().collect();
        let counters = common_counters(&all_exps);
        let frame = Frame::build(&all_exps, &counters, sc.target)
            .expect("common counters exist everywhere");
        let names: Vec<String> = all_exps.iter().map(|e| short(&e.name)).collect();
        let n_train_exps = train_exps.len();
        let splits: Vec<Split> = if sc.test.is_empty() {
            let mut v = vec![random_60_20_20(frame.len(), SEED)];
            v.extend(leave_experiment_out(&frame, &names, MAX_FOLDS, SEED));
            v
        } else {
            let in_train: Vec<usize> = (0..frame.len())
                .filter(|&i| frame.experiment[i] < n_train_exps)
                .collect();
            let s = random_60_20_20(in_train.len(), SEED);
            vec![Split {
                name: "train linear 80 / val linear 20 → test DAG".into(),
                train: s
                    .train
                    .iter()
                    .chain(&s.test)
                    .map(|&k| in_train[k])
                    .collect(),
                validation: s.validation.iter().map(|&k| in_train[k]).collect(),
                test: (0..frame.len())
                    .filter(|&i| frame.experiment[i] >= n_train_exps)
                    .collect(),
            }]
        };
        let _ = writeln!(
            report,
            "\n## {} — {} ({} experiments, {} samples, {} censored; {} common counters)\npaper: {}",
            sc.name,
            sc.target.name(),
            all_exps.len(),
            frame.len(),
            frame.censored.iter().filter(|c| **c).count(),
            counters.len(),
            sc.paper
        );
        let _ = writeln!(
            report,
            "{:<44} {:>9} {:>9} {:>9} {:>9} | {:>7} {:>7} {:>7} {:>7} {:>5}",
            "split",
            "mlp",
            "gbr",
            "ols",
            "dobrescu",
            "mlp w10",
            "gbr w10",
            "ols w10",
            "dob w10",
            "n"
        );
        for (k, split) in splits.iter().enumerate() {
            let tr = frame.subset(&split.train);
            let va = frame.subset(&split.validation);
            let te = frame.subset(&split.test);
            let te_m = te.measured();
            if te_m.is_empty() || tr.measured().len() < 8 {
                continue;
            }
            let mut accs = vec![];
            let mut w10 = vec![];
            let mut preds = vec![];
            let mut censored_done = false;
            for kind in KINDS {
                let opts = TrainOptions {
                    kind,
                    target: sc.target,
                    grid: grid.clone(),
                    pearson_threshold: DEFAULT_PEARSON_THRESHOLD,
                    seed: SEED,
                };
                let this_unit = unit;
                unit += 1;
                let unit_name = format!("s{si}-k{k}-{}", kind.name());
                let unit_dir = cache.join(&unit_name);
                if shard.is_some() {
                    let taken = match &claims {
                        Some(c) => !claim(c, &unit_name),
                        // Started by hand without a queue: every n-th unit.
                        None => shard.is_some_and(|(i, n)| this_unit % n != i),
                    };
                    if taken || TrainedModel::load(&unit_dir).is_ok() {
                        continue;
                    }
                }
                let cached = TrainedModel::load(&unit_dir).ok();
                let from_cache = cached.is_some();
                let t = Instant::now();
                let model = match cached.map_or_else(|| train(&tr, &va, vec![], &opts), Ok) {
                    Ok(m) => m,
                    Err(e) => {
                        eprintln!("{} / {} / {}: {e}", sc.name, split.name, kind.name());
                        accs.push(f64::NAN);
                        w10.push(f64::NAN);
                        continue;
                    }
                };
                let train_s = if from_cache {
                    model.meta.train_seconds
                } else {
                    // Written aside and renamed, so an interrupted save is
                    // never read back as a fit.
                    let tmp = cache.join(format!(".tmp-{}-{this_unit}", std::process::id()));
                    let _ = std::fs::remove_dir_all(&tmp);
                    let saved = model.save(&tmp).and_then(|()| {
                        let _ = std::fs::remove_dir_all(&unit_dir);
                        std::fs::rename(&tmp, &unit_dir)
                            .map_err(|e| nfc_predictor::PredictError::Io(unit_dir.clone(), e))
                    });
                    if let Err(e) = saved {
                        eprintln!("predictor bench: fit not cached: {e}");
                    }
                    t.elapsed().as_secs_f64()
                };
                eprintln!(
                    "[{}{}] {} / {} / {}: {}",
                    this_unit + 1,
                    shard
                        .map(|(i, n)| format!(" shard {i}/{n}"))
                        .unwrap_or_default(),
                    sc.name,
                    split.name,
                    kind.name(),
                    if from_cache {
                        "cached".to_string()
                    } else {
                        format!("fitted in {train_s:.1} s")
                    }
                );
                if shard.is_some() {
                    continue;
                }
                let t = Instant::now();
                let p = model.predict(&te_m).expect("features present");
                let infer = t.elapsed().as_secs_f64() * 1e6 / te_m.len().max(1) as f64;
                let m = Metrics::compute(&p, &te_m.y);
                accs.push(m.accuracy);
                w10.push(m.within_10);
                if !censored_done {
                    if let Some(prob) = model.predict_censored(&te).expect("features present") {
                        censored_done = true;
                        let n = te.len();
                        let tp = (0..n).filter(|&i| prob[i] >= 0.5 && te.censored[i]).count();
                        let actual = te.censored.iter().filter(|c| **c).count();
                        let predicted = prob.iter().filter(|p| **p >= 0.5).count();
                        let correct = (0..n)
                            .filter(|&i| (prob[i] >= 0.5) == te.censored[i])
                            .count();
                        censored_json.push(json!({"scenario": sc.name, "split": split.name, "n": n, "censored": actual, "predicted_censored": predicted, "true_positive": tp, "accuracy": correct as f64 / n.max(1) as f64}));
                    }
                }
                if k == 1 || splits.len() == 1 {
                    preds.push((kind.name().to_string(), p.clone()));
                }
                if kind == ModelKind::Mlp && si == 2 && k == 0 {
                    if let Ok(s) = shapley(&model, &te_m, 40, SEED) {
                        let mut order: Vec<usize> = (0..s.features.len()).collect();
                        order.sort_by(|&a, &b| s.mean_abs[b].total_cmp(&s.mean_abs[a]));
                        let _ = plot::importance_bars(
                            &out.join("shapley-mlp-resource.svg"),
                            "MLP, resource stimulus: mean |Shapley value|",
                            &order
                                .iter()
                                .map(|&i| s.features[i].clone())
                                .collect::<Vec<_>>(),
                            &order.iter().map(|&i| s.mean_abs[i]).collect::<Vec<_>>(),
                        );
                        let top: Vec<String> = order
                            .iter()
                            .take(5)
                            .map(|&i| format!("{} {:.1}", s.features[i], s.mean_abs[i]))
                            .collect();
                        let _ = writeln!(
                            report,
                            "  (MLP Shapley, {}: top mean |φ| {})",
                            if s.exact { "exact" } else { "sampled" },
                            top.join(", ")
                        );
                    }
                }
                rows.push(Row {
                    scenario: sc.name.into(),
                    split: split.name.clone(),
                    kind: kind.name().into(),
                    metrics: m,
                    train_s,
                    infer_us_per_sample: infer,
                    features: model.meta.features.len(),
                    search: model
                        .meta
                        .search
                        .as_ref()
                        .map(|s| (s.configurations, s.seconds)),
                });
            }
            if shard.is_some() {
                continue;
            }
            let f = |v: &[f64]| {
                v.iter()
                    .map(|a| format!("{a:>9.3}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            let g = |v: &[f64]| {
                v.iter()
                    .map(|a| format!("{a:>7.3}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            let _ = writeln!(
                report,
                "{:<44} {} | {} {:>5}",
                truncate(&split.name, 44),
                f(&accs),
                g(&w10),
                te_m.len()
            );
            if !preds.is_empty() {
                let file = format!(
                    "s{si}-{}-predicted.svg",
                    if k == 0 && splits.len() > 1 {
                        "random"
                    } else {
                        "heldout"
                    }
                );
                let order: Vec<usize> = if k == 0 && splits.len() > 1 {
                    let mut o: Vec<usize> = (0..te_m.len()).collect();
                    o.sort_by_key(|&i| (te_m.experiment[i], te_m.line[i]));
                    o
                } else {
                    (0..te_m.len()).collect()
                };
                let y: Vec<f64> = order.iter().map(|&i| te_m.y[i]).collect();
                let ps: Vec<(String, Vec<f64>)> = preds
                    .iter()
                    .map(|(n, p)| (n.clone(), order.iter().map(|&i| p[i]).collect()))
                    .collect();
                let _ = plot::predicted_vs_measured(
                    &out.join(file),
                    &format!("{} — {}", sc.name, split.name),
                    &y,
                    &ps,
                );
            }
            // The same rows for scikit-learn (throughput scenarios, for
            // time): every non-constant counter, by decreasing |r|, so the
            // Pearson selection is the first `pearson_columns` (the script
            // offers its models the same two feature sets nfc's choose
            // between on the validation fold).
            if sc.target != Target::Throughput {
                continue;
            }
            let pearson_columns = select_pearson(&tr.measured(), DEFAULT_PEARSON_THRESHOLD)
                .selected
                .len();
            let sel = select_pearson(&tr.measured(), 0.0);
            let dir = out.join("splits").join(format!("s{si}-k{k}"));
            std::fs::create_dir_all(&dir).expect("split dir");
            for (name, fr) in [
                ("train", tr.measured()),
                ("validation", va.measured()),
                ("test", te_m.clone()),
            ] {
                write_csv(
                    &dir.join(format!("{name}.csv")),
                    &project(&fr, &sel.selected).expect("selected features"),
                );
            }
            exports.push(json!({"dir": dir, "scenario": sc.name, "split": split.name, "pearson_columns": pearson_columns, "unfiltered": grid.unfiltered > 0}));
        }
        if si == 5 && shard.is_none() {
            let view = pca(&frame);
            let classes: Vec<usize> = (0..frame.len())
                .map(|i| {
                    if frame.censored[i] {
                        2
                    } else if frame.y[i] > 100.0 {
                        1
                    } else {
                        0
                    }
                })
                .collect();
            let _ = plot::pca_scatter(
                &out.join("pca-bridge-latency.svg"),
                &format!(
                    "bridge counters, PCA ({:.0}% + {:.0}%)",
                    100.0 * view.explained[0],
                    100.0 * view.explained[1]
                ),
                &view.points,
                &classes,
                &["latency ≤ 100", "latency > 100", "probe lost (censored)"],
            );
            let _ = writeln!(report, "  PCA of the bridge counters: PC1 {:.1}%, PC2 {:.1}% of the variance (plot: pca-bridge-latency.svg)", 100.0 * view.explained[0], 100.0 * view.explained[1]);
        }
    }
    if let Some((i, n)) = shard {
        eprintln!(
            "predictor bench: shard {i}/{n} done in {:.0} s",
            started.elapsed().as_secs_f64()
        );
        return;
    }
    // Means per scenario and split kind.
    let _ = writeln!(
        report,
        "\n## summary: mean accuracy (1 − mean |ŷ−y|/y) on the test folds"
    );
    let _ = writeln!(
        report,
        "{:<44} {:<8} {:>7} {:>7} {:>7} {:>8}",
        "scenario", "split", "mlp", "gbr", "ols", "dobrescu"
    );
    for sc in &scenarios {
        for (label, is_random) in [("random", true), ("LOEO", false)] {
            let mut cells = vec![];
            for kind in KINDS {
                let v: Vec<f64> = rows
                    .iter()
                    .filter(|r| {
                        r.scenario == sc.name
                            && r.kind == kind.name()
                            && (r.split.starts_with("random") == is_random)
                    })
                    .map(|r| r.metrics.accuracy)
                    .collect();
                cells.push(if v.is_empty() {
                    f64::NAN
                } else {
                    v.iter().sum::<f64>() / v.len() as f64
                });
            }
            if cells.iter().all(|c| c.is_nan()) {
                continue;
            }
            let _ = writeln!(
                report,
                "{:<44} {:<8} {:>7.3} {:>7.3} {:>7.3} {:>8.3}",
                truncate(sc.name, 44),
                if sc.test.is_empty() {
                    label
                } else {
                    "transfer"
                },
                cells[0],
                cells[1],
                cells[2],
                cells[3]
            );
        }
    }
    let _ = writeln!(
        report,
        "\n## time (this run; the machine is shared, so absolute times are noisy)"
    );
    for kind in KINDS {
        let r: Vec<&Row> = rows.iter().filter(|r| r.kind == kind.name()).collect();
        let train: f64 = r.iter().map(|r| r.train_s).sum();
        let configs: usize = r.iter().filter_map(|r| r.search.map(|s| s.0)).sum();
        let infer = r.iter().map(|r| r.infer_us_per_sample).sum::<f64>() / r.len().max(1) as f64;
        let feats = r.iter().map(|r| r.features).sum::<usize>() as f64 / r.len().max(1) as f64;
        let _ = writeln!(report, "{:<9} training {:>8.1} s over {:>3} fits ({} configurations searched), inference {:>8.2} µs/sample, {:.1} features on average", kind.name(), train, r.len(), configs, infer, feats);
    }
    let _ = writeln!(
        report,
        "Rust side total: {:.0} s",
        started.elapsed().as_secs_f64()
    );
    print!("{report}");
    // NFC_PREDICTOR_BENCH_QUICK: tiny MLP grid and no scikit-learn run
    // (a smoke test of the bench itself, not a measurement).
    let sklearn = if quick {
        None
    } else {
        run_sklearn(&root, &out, &exports)
    };
    if let Some(sk) = &sklearn {
        print_sklearn(sk, &rows);
    }
    let json_rows: Vec<serde_json::Value> = rows.iter().map(|r| json!({"scenario": r.scenario, "split": r.split, "model": r.kind, "metrics": r.metrics, "train_seconds": r.train_s, "inference_us_per_sample": r.infer_us_per_sample, "features": r.features})).collect();
    println!(
        "{}",
        json!({"rows": json_rows, "censored": censored_json, "sklearn": sklearn, "grid_configurations": grid.configs().len()})
    );
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(n - 1).collect::<String>())
    }
}

/// Create the venv (once), install scikit-learn from PyPI, run the script
/// over the exported splits.
fn run_sklearn(
    root: &Path,
    out: &Path,
    exports: &[serde_json::Value],
) -> Option<serde_json::Value> {
    use std::process::Command;
    let venv = PathBuf::from(
        std::env::var_os("NFC_PREDICTOR_VENV")
            .unwrap_or_else(|| "/var/tmp/nfc-predictor-venv".into()),
    );
    let py = venv.join("bin/python");
    let ok = |c: &mut Command| c.status().map(|s| s.success()).unwrap_or(false);
    if !py.exists() && !ok(Command::new("python3").args(["-m", "venv"]).arg(&venv)) {
        eprintln!(
            "predictor bench: cannot create a venv in {}: scikit-learn comparison SKIPPED",
            venv.display()
        );
        return None;
    }
    let has = Command::new(&py)
        .args(["-c", "import sklearn"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !has {
        eprintln!(
            "predictor bench: installing scikit-learn into {}",
            venv.display()
        );
        if !ok(Command::new(&py).args(["-m", "pip", "install", "--quiet", "scikit-learn>=1.4,<2"]))
        {
            eprintln!("predictor bench: pip install scikit-learn failed: comparison SKIPPED");
            return None;
        }
    }
    let manifest = out.join("splits/manifest.json");
    std::fs::write(&manifest, serde_json::to_string(exports).ok()?).ok()?;
    let script = root.join("crates/predictor/benches/sklearn_compare.py");
    let o = Command::new(&py)
        .arg(&script)
        .arg(&manifest)
        .arg(SEED.to_string())
        .output()
        .ok()?;
    if !o.status.success() {
        eprintln!(
            "predictor bench: scikit-learn script failed:\n{}",
            String::from_utf8_lossy(&o.stderr)
        );
        return None;
    }
    serde_json::from_slice(&o.stdout).ok()
}

fn print_sklearn(sk: &serde_json::Value, rows: &[Row]) {
    println!("\n## scikit-learn {} on the same rows and features (StandardScaler on train; MLPRegressor grid of {} and GradientBoostingRegressor grid of {} on the validation fold)", sk["version"].as_str().unwrap_or("?"), sk["mlp_grid"], sk["gbr_grid"]);
    println!(
        "{:<44} {:<44} {:>8} {:>8} {:>8} {:>8}",
        "scenario", "split", "nfc mlp", "sk mlp", "nfc gbr", "sk gbr"
    );
    let mut wins = [0usize; 2];
    let mut total = 0;
    for r in sk["results"].as_array().into_iter().flatten() {
        let sc = r["scenario"].as_str().unwrap_or("");
        let sp = r["split"].as_str().unwrap_or("");
        let ours = |k: &str| {
            rows.iter()
                .find(|x| x.scenario == sc && x.split == sp && x.kind == k)
                .map_or(f64::NAN, |x| x.metrics.accuracy)
        };
        let (om, og) = (ours("mlp"), ours("gbr"));
        let (sm, sg) = (
            r["mlp"]["accuracy"].as_f64().unwrap_or(f64::NAN),
            r["gbr"]["accuracy"].as_f64().unwrap_or(f64::NAN),
        );
        total += 1;
        wins[0] += usize::from(om >= sm);
        wins[1] += usize::from(og >= sg);
        println!(
            "{:<44} {:<44} {om:>8.3} {sm:>8.3} {og:>8.3} {sg:>8.3}",
            truncate(sc, 44),
            truncate(sp, 44)
        );
    }
    println!(
        "nfc at least as accurate: MLP {}/{total} splits, GBR {}/{total} splits",
        wins[0], wins[1]
    );
}
