//! The predictor on nfc's own data: counter CSVs `nfc profile` collected
//! from flash-rt chains on this machine (the `profile-data` bench step
//! writes them to `target/nfc-bench/own-data/<chain>/<stimulus>-s<seed>.csv`;
//! without them, the copies committed in `data/profiles/`; `NFC_OWN_DATA`
//! overrides). Two evaluations, each split by experiment
//! (whole runs), never by row, with one split for every model:
//!
//! - cross-run: per chain, train on the seed-1 runs (load and resource
//!   stimulus), choose hyper-parameters on the seed-1 run under both
//!   stimuli, test on the separately collected seed-2 runs (all three
//!   stimuli: another schedule, another start of the chain);
//! - cross-topology (the paper's Fig. 9): train on the linear chain
//!   (flowmage-3nf, seed-1 runs; validation its seed-2 `both` run), test
//!   on the DAG (flash-dag, every run). The chains have different NFs, so
//!   both sides use topology-free features: per counter, the sum and the
//!   maximum over the chain's NFs (`sum_<counter>`, `max_<counter>`).
//!
//! MLP (tch, the standard grid; `NFC_PREDICTOR_BENCH_QUICK=1`: the tiny
//! grid), GBR (forust-ml), OLS on the Pearson-selected counters and
//! Dobrescu (cache counters; this VM has none, which the table says) for
//! throughput (`output_rate`) and latency (measured samples). Prints the
//! tables and, last, one JSON line for the report.

use nfc_predictor::data::{load_files, ConflictPolicy, Experiment, Sample};
use nfc_predictor::features::{common_counters, Frame, Target};
use nfc_predictor::metrics::Metrics;
use nfc_predictor::mlp::Grid;
use nfc_predictor::model::{train, ModelKind, TrainOptions, DEFAULT_PEARSON_THRESHOLD};
use serde_json::json;
use std::path::{Path, PathBuf};

const SEED: u64 = 17;
const KINDS: [ModelKind; 4] = [
    ModelKind::Mlp,
    ModelKind::Gbr,
    ModelKind::Linear,
    ModelKind::Dobrescu,
];

fn runs(dir: &Path, stimuli: &[&str], seeds: &[u32]) -> Vec<PathBuf> {
    let mut v = vec![];
    for s in stimuli {
        for seed in seeds {
            let p = dir.join(format!("{s}-s{seed}.csv"));
            if p.is_file() {
                v.push(p);
            }
        }
    }
    v
}

/// `<nf>_<counter>` → (nf, counter); counters have no `_`, NF ids may.
fn split_column(c: &str) -> Option<(&str, &str)> {
    let i = c.rfind('_')?;
    Some((&c[..i], &c[i + 1..]))
}

/// Per counter, the sum and the maximum over the NFs: a view of a run that
/// does not depend on the chain's NFs.
fn topology_free(e: &Experiment) -> Experiment {
    let mut kinds: Vec<String> = vec![];
    for c in &e.counters {
        if let Some((_, k)) = split_column(c) {
            if !kinds.iter().any(|x| x == k) {
                kinds.push(k.to_string());
            }
        }
    }
    let cols: Vec<Vec<usize>> = kinds
        .iter()
        .map(|k| {
            e.counters
                .iter()
                .enumerate()
                .filter(|(_, c)| split_column(c).is_some_and(|(_, kk)| kk == k))
                .map(|(i, _)| i)
                .collect()
        })
        .collect();
    let mut counters = vec![];
    for k in &kinds {
        counters.push(format!("sum_{k}"));
        counters.push(format!("max_{k}"));
    }
    let samples = e
        .samples
        .iter()
        .map(|s| {
            let mut v = vec![];
            for idx in &cols {
                v.push(idx.iter().map(|&i| s.counters[i]).sum());
                v.push(idx.iter().map(|&i| s.counters[i]).fold(0.0, f64::max));
            }
            Sample {
                counters: v,
                ..s.clone()
            }
        })
        .collect();
    Experiment {
        counters,
        samples,
        ..e.clone()
    }
}

fn frame(exps: &[Experiment], cols: &[String], target: Target) -> Frame {
    Frame::build(exps, cols, target).expect("common counters")
}

struct Eval {
    scenario: String,
    target: Target,
    kind: ModelKind,
    metrics: Option<Metrics>,
    note: String,
}

fn evaluate(
    scenario: &str,
    train_e: &[Experiment],
    val_e: &[Experiment],
    test_e: &[Experiment],
    target: Target,
    grid: &Grid,
    out: &mut Vec<Eval>,
) {
    let all: Vec<Experiment> = train_e.iter().chain(val_e).chain(test_e).cloned().collect();
    let cols = common_counters(&all);
    let (tr, va, te) = (
        frame(train_e, &cols, target),
        frame(val_e, &cols, target),
        frame(test_e, &cols, target),
    );
    for kind in KINDS {
        let opts = TrainOptions {
            kind,
            target,
            grid: grid.clone(),
            pearson_threshold: DEFAULT_PEARSON_THRESHOLD,
            seed: SEED,
        };
        let names = train_e.iter().map(|e| e.name.clone()).collect();
        let (metrics, note) = match train(&tr, &va, names, &opts) {
            Ok(m) => {
                let t = te.measured();
                match m.predict(&t) {
                    Ok(p) => (
                        Some(Metrics::compute(&p, &t.y)),
                        format!("{} features", m.meta.features.len()),
                    ),
                    Err(e) => (None, e.to_string()),
                }
            }
            Err(e) => (None, e.to_string()),
        };
        out.push(Eval {
            scenario: scenario.to_string(),
            target,
            kind,
            metrics,
            note,
        });
    }
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    // A fresh collection (`profile-data` step) if there is one, else the
    // profiles committed in data/profiles (collected the same way).
    let fresh = std::env::var_os("NFC_BENCH_OUT")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/nfc-bench"))
        .join("own-data");
    let data = std::env::var_os("NFC_OWN_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            if fresh.join("flash-dag").is_dir() {
                fresh
            } else {
                root.join("data/profiles")
            }
        });
    let linear = data.join("flowmage-3nf");
    let dag = data.join("flash-dag");
    if runs(&linear, &["load"], &[1]).is_empty() || runs(&dag, &["load"], &[1]).is_empty() {
        eprintln!(
            "own-data bench: no profiles in {} (run `cargo xtask bench profile-data` first, as root)",
            data.display()
        );
        println!(
            "{}",
            json!({"skipped": format!("no profiles in {}", data.display())})
        );
        return;
    }
    let grid = if std::env::var_os("NFC_PREDICTOR_BENCH_QUICK").is_some() {
        Grid::tiny()
    } else {
        Grid::standard()
    };
    // A run in which the chain forwarded nothing (every row is output 0,
    // which the loader drops as warm-up) has no samples: it is reported and
    // left out, never silently.
    let load = |p: Vec<PathBuf>| -> Vec<Experiment> {
        p.iter()
            .filter_map(
                |f| match load_files(std::slice::from_ref(f), ConflictPolicy::Reject) {
                    Ok(e) => Some(e),
                    Err(e) => {
                        eprintln!("left out: {e}");
                        None
                    }
                },
            )
            .flatten()
            .collect()
    };
    let mut evals = vec![];
    let t0 = std::time::Instant::now();
    for target in [Target::Throughput, Target::Latency] {
        for (chain, dir) in [("flowmage-3nf", &linear), ("flash-dag", &dag)] {
            let tr = load(runs(dir, &["load", "resource"], &[1]));
            let va = load(runs(dir, &["both"], &[1]));
            let te = load(runs(dir, &["load", "resource", "both"], &[2]));
            if tr.is_empty() || va.is_empty() || te.is_empty() {
                eprintln!("{chain}: missing runs for cross-run (need seed 1 and 2)");
                continue;
            }
            evaluate(
                &format!("cross-run, {chain} (per-NF counters)"),
                &tr,
                &va,
                &te,
                target,
                &grid,
                &mut evals,
            );
            let tf = |v: &[Experiment]| v.iter().map(topology_free).collect::<Vec<_>>();
            evaluate(
                &format!("cross-run, {chain} (sum/max counters)"),
                &tf(&tr),
                &tf(&va),
                &tf(&te),
                target,
                &grid,
                &mut evals,
            );
        }
        let tf = |v: Vec<Experiment>| v.iter().map(topology_free).collect::<Vec<_>>();
        let tr = tf(load(runs(&linear, &["load", "resource", "both"], &[1])));
        let va = tf(load(runs(&linear, &["both"], &[2])));
        let te = tf(load(runs(&dag, &["load", "resource", "both"], &[1, 2])));
        evaluate(
            "cross-topology, flowmage-3nf → flash-dag (sum/max counters)",
            &tr,
            &va,
            &te,
            target,
            &grid,
            &mut evals,
        );
    }
    let fmt = |m: &Option<Metrics>, f: fn(&Metrics) -> f64| {
        m.as_ref()
            .map(|m| format!("{:.3}", f(m)))
            .unwrap_or_else(|| "n/a".into())
    };
    for target in [Target::Throughput, Target::Latency] {
        eprintln!(
            "\n### {} (test accuracy = 1 − mean relative error; R²; share within 10%)\n",
            target.name()
        );
        eprintln!("| scenario | MLP acc | GBR acc | linear acc | Dobrescu | MLP R² | GBR R² | linear R² | MLP ≤10% | GBR ≤10% | linear ≤10% | n |");
        eprintln!("|---|---|---|---|---|---|---|---|---|---|---|---|");
        let mut scen: Vec<&str> = evals
            .iter()
            .filter(|e| e.target == target)
            .map(|e| e.scenario.as_str())
            .collect();
        scen.dedup();
        for s in scen {
            let get = |k: ModelKind| {
                evals
                    .iter()
                    .find(|e| e.scenario == s && e.target == target && e.kind == k)
                    .expect("evaluated")
            };
            let (m, g, l, d) = (
                get(ModelKind::Mlp),
                get(ModelKind::Gbr),
                get(ModelKind::Linear),
                get(ModelKind::Dobrescu),
            );
            let dob = if d.metrics.is_some() {
                fmt(&d.metrics, |m| m.accuracy)
            } else {
                "n/a (no cache counters)".into()
            };
            eprintln!(
                "| {s} | {} | {} | {} | {dob} | {} | {} | {} | {} | {} | {} | {} |",
                fmt(&m.metrics, |m| m.accuracy),
                fmt(&g.metrics, |m| m.accuracy),
                fmt(&l.metrics, |m| m.accuracy),
                fmt(&m.metrics, |m| m.r2),
                fmt(&g.metrics, |m| m.r2),
                fmt(&l.metrics, |m| m.r2),
                fmt(&m.metrics, |m| m.within_10),
                fmt(&g.metrics, |m| m.within_10),
                fmt(&l.metrics, |m| m.within_10),
                m.metrics
                    .map(|m| m.n)
                    .or(g.metrics.map(|m| m.n))
                    .unwrap_or(0),
            );
        }
    }
    for e in evals
        .iter()
        .filter(|e| e.metrics.is_none() && e.kind != ModelKind::Dobrescu)
    {
        eprintln!(
            "note: {} / {} / {}: {}",
            e.scenario,
            e.target.name(),
            e.kind.name(),
            e.note
        );
    }
    eprintln!(
        "\nown-data bench: {:.0} s (MLP grid {} configurations)",
        t0.elapsed().as_secs_f64(),
        grid.configs().len()
    );
    let rows: Vec<serde_json::Value> = evals
        .iter()
        .map(|e| json!({"scenario": e.scenario, "target": e.target.name(), "model": e.kind.name(), "metrics": e.metrics, "note": e.note}))
        .collect();
    println!(
        "{}",
        json!({"data": data.display().to_string(), "evaluations": rows})
    );
}
