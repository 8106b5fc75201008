//! `nfc predict train|eval|explain`: the INFOCOM'24 predictor on counter
//! CSVs (crates/predictor). Bad input (a malformed CSV, a model directory
//! that is not one, data without the model's features) exits 1 with the
//! location; nothing here panics on input.

use super::{out, Format};
use nfc_predictor::data::{load_files, ConflictPolicy, Experiment};
use nfc_predictor::explain::{pca, permutation_importance, shapley};
use nfc_predictor::features::{common_counters, Frame, Target};
use nfc_predictor::metrics::Metrics;
use nfc_predictor::mlp::Grid;
use nfc_predictor::model::{
    train, ModelKind, TrainOptions, TrainedModel, DEFAULT_PEARSON_THRESHOLD,
};
use nfc_predictor::split::random_60_20_20;
use nfc_predictor::{plot, PredictError};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: PredictCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum PredictCommand {
    /// Train a model on counter CSVs and save it to a directory.
    Train(TrainArgs),
    /// Evaluate a saved model on counter CSVs, per file.
    Eval(EvalArgs),
    /// Explain a saved model: permutation importance, Shapley values, PCA.
    Explain(ExplainArgs),
    /// Predict row by row: a counter-CSV header then rows on stdin, one
    /// prediction per row on stdout (`nfc monitor --model` runs this).
    #[command(hide = true)]
    Stream(StreamArgs),
    /// SmartNIC compute-instruction models on insight IR (Clara §3.2).
    Insight(crate::insight::Args),
}

#[derive(Debug, clap::Args)]
pub struct StreamArgs {
    /// Model directory (from `nfc predict train`).
    #[arg(long)]
    pub model: PathBuf,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum TargetArg {
    Throughput,
    Latency,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum ModelArg {
    /// The paper's MLP (tch), grid-searched on a validation fold.
    Mlp,
    /// Gradient-boosting regression (SLOMO's model).
    Gbr,
    /// Least squares on the Pearson-selected counters.
    Linear,
    /// Dobrescu et al.: least squares on cache-access counters.
    Dobrescu,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum ConflictArg {
    /// A located error at the first merge-conflict marker.
    Reject,
    /// Keep the side before `=======`.
    Head,
    /// Keep the side after `=======`.
    Other,
    /// Keep both sides as two experiments.
    Both,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum GridArg {
    /// 24 configurations, up to 150 epochs each (scored every 10, the
    /// output layer refitted at each score, the output saturating at the
    /// edges of the training targets' range), the chosen one averaged over
    /// 5 seeds.
    Standard,
    /// 2 configurations, 20 epochs (quick checks).
    Tiny,
}

#[derive(Debug, clap::Args)]
pub struct DataArgs {
    /// Counter CSV files (onvm layout or nfc's schema).
    #[arg(long, num_args = 1.., required = true)]
    pub data: Vec<PathBuf>,
    /// What to do with git merge-conflict markers in a CSV.
    #[arg(long, value_enum, default_value_t = ConflictArg::Reject)]
    pub conflict: ConflictArg,
}

#[derive(Debug, clap::Args)]
pub struct TrainArgs {
    #[command(flatten)]
    pub data: DataArgs,
    #[arg(long, value_enum)]
    pub target: TargetArg,
    #[arg(long, value_enum, default_value_t = ModelArg::Mlp)]
    pub model: ModelArg,
    /// Model directory to write.
    #[arg(short, long)]
    pub output: PathBuf,
    /// |Pearson r| a counter needs on the training rows to be a feature.
    #[arg(long, default_value_t = DEFAULT_PEARSON_THRESHOLD)]
    pub pearson_threshold: f64,
    /// MLP grid.
    #[arg(long, value_enum, default_value_t = GridArg::Standard)]
    pub grid: GridArg,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// Model directory (from `nfc predict train`).
    #[arg(long)]
    pub model: PathBuf,
    #[command(flatten)]
    pub data: DataArgs,
    /// Write predicted-vs-measured SVGs (one per file) into this directory.
    #[arg(long)]
    pub plot: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct ExplainArgs {
    /// Model directory (from `nfc predict train`).
    #[arg(long)]
    pub model: PathBuf,
    #[command(flatten)]
    pub data: DataArgs,
    /// Rows whose Shapley values are listed (evenly spaced).
    #[arg(long, default_value_t = 5)]
    pub rows: usize,
    /// Write importance bars and the PCA scatter (SVG) into this directory.
    #[arg(long)]
    pub plot: Option<PathBuf>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

pub fn run(args: Args, fmt: Format) -> anyhow::Result<ExitCode> {
    let result = match args.command {
        PredictCommand::Train(a) => run_train(a, fmt),
        PredictCommand::Eval(a) => run_eval(a, fmt),
        PredictCommand::Explain(a) => run_explain(a, fmt),
        PredictCommand::Stream(a) => run_stream(a),
        PredictCommand::Insight(a) => return crate::insight::run(a, fmt),
    };
    match result {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) => {
            match fmt {
                Format::Human => eprintln!("error: {e}"),
                Format::Json => eprintln!("{}", json!({"error": e.to_string()})),
            }
            Ok(ExitCode::from(1))
        }
    }
}

/// `stream`: the model's features are looked up by name in the header; a
/// row with a non-number in one of them predicts `nan`. The first output
/// line is the model's target and kind.
fn run_stream(a: StreamArgs) -> Result<(), PredictError> {
    use std::io::{BufRead, Write};
    let model = TrainedModel::load(&a.model)?;
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let mut o = std::io::stdout().lock();
    let io = |e: std::io::Error| PredictError::Model(e.to_string());
    let header: Vec<String> = match lines.next() {
        Some(l) => l
            .map_err(io)?
            .split(',')
            .map(|c| c.trim().to_string())
            .collect(),
        None => return Ok(()),
    };
    let idx: Vec<usize> = model
        .meta
        .features
        .iter()
        .map(|f| {
            header
                .iter()
                .position(|h| h == f)
                .ok_or_else(|| PredictError::MissingFeature(f.clone()))
        })
        .collect::<Result<_, _>>()?;
    writeln!(o, "{} {}", model.meta.target.name(), model.meta.kind.name()).map_err(io)?;
    o.flush().map_err(io)?;
    for line in lines {
        let line = line.map_err(io)?;
        let cells: Vec<&str> = line.split(',').collect();
        let row: Option<Vec<f64>> = idx
            .iter()
            .map(|&i| cells.get(i)?.trim().parse().ok())
            .collect();
        let p = match row {
            Some(r) => model.predict_raw(&[r]).first().copied().unwrap_or(f64::NAN),
            None => f64::NAN,
        };
        writeln!(o, "{p}").map_err(io)?;
        o.flush().map_err(io)?;
    }
    Ok(())
}

fn policy(c: ConflictArg) -> ConflictPolicy {
    match c {
        ConflictArg::Reject => ConflictPolicy::Reject,
        ConflictArg::Head => ConflictPolicy::Head,
        ConflictArg::Other => ConflictPolicy::Other,
        ConflictArg::Both => ConflictPolicy::Both,
    }
}

fn load(d: &DataArgs) -> Result<Vec<Experiment>, PredictError> {
    Ok(load_files(&d.data, policy(d.conflict))?)
}

fn print(v: serde_json::Value, human: String, fmt: Format) -> Result<(), PredictError> {
    let text = match fmt {
        Format::Json => format!("{}\n", serde_json::to_string_pretty(&v).unwrap_or_default()),
        Format::Human => human,
    };
    out(&text).map_err(|e| PredictError::Model(e.to_string()))
}

fn run_train(a: TrainArgs, fmt: Format) -> Result<(), PredictError> {
    let experiments = load(&a.data)?;
    let target = match a.target {
        TargetArg::Throughput => Target::Throughput,
        TargetArg::Latency => Target::Latency,
    };
    let kind = match a.model {
        ModelArg::Mlp => ModelKind::Mlp,
        ModelArg::Gbr => ModelKind::Gbr,
        ModelArg::Linear => ModelKind::Linear,
        ModelArg::Dobrescu => ModelKind::Dobrescu,
    };
    if !(0.0..=1.0).contains(&a.pearson_threshold) {
        return Err(PredictError::Model(format!(
            "--pearson-threshold {} is not in 0..=1",
            a.pearson_threshold
        )));
    }
    let frame = Frame::build(&experiments, &common_counters(&experiments), target)?;
    // All rows train except a seeded 20% that the hyper-parameter search
    // scores on (the 60/20/20 split's test fold joins the training rows:
    // testing is `nfc predict eval` on other data).
    let s = random_60_20_20(frame.len(), a.seed);
    let train_rows: Vec<usize> = s.train.iter().chain(&s.test).copied().collect();
    let opts = TrainOptions {
        kind,
        target,
        grid: match a.grid {
            GridArg::Standard => Grid::standard(),
            GridArg::Tiny => Grid::tiny(),
        },
        pearson_threshold: a.pearson_threshold,
        seed: a.seed,
    };
    let names = experiments.iter().map(|e| e.name.clone()).collect();
    let model = train(
        &frame.subset(&train_rows),
        &frame.subset(&s.validation),
        names,
        &opts,
    )?;
    model.save(&a.output)?;
    let m = &model.meta;
    let val = m
        .validation
        .map(|v| format!("validation accuracy {:.3} (n={})", v.accuracy, v.n))
        .unwrap_or_default();
    print(
        json!({
            "model": a.output,
            "kind": m.kind,
            "target": m.target,
            "features": m.features,
            "n_train": m.n_train,
            "validation": m.validation,
            "search": m.search,
            "train_seconds": m.train_seconds,
        }),
        format!(
            "trained {} ({}) on {} samples, {} features; {val}; {:.1} s; saved to {}\n",
            m.kind.name(),
            m.target.name(),
            m.n_train,
            m.features.len(),
            m.train_seconds,
            a.output.display()
        ),
        fmt,
    )
}

fn file_stem(name: &str) -> String {
    Path::new(name)
        .file_name()
        .map(|s| s.to_string_lossy().replace('#', "-"))
        .unwrap_or_else(|| "data".into())
}

fn run_eval(a: EvalArgs, fmt: Format) -> Result<(), PredictError> {
    let model = TrainedModel::load(&a.model)?;
    let experiments = load(&a.data)?;
    let mut files = vec![];
    let mut human = format!(
        "{:<50} {:>8} {:>8} {:>7} {:>8} {:>9} {:>6}\n",
        "file", "accuracy", "mape%", "r2", "within_5", "within_10", "n"
    );
    let (mut all_p, mut all_y) = (vec![], vec![]);
    if let Some(dir) = &a.plot {
        std::fs::create_dir_all(dir).map_err(|e| PredictError::Io(dir.clone(), e))?;
    }
    for e in &experiments {
        let frame = Frame::build(
            std::slice::from_ref(e),
            &model.meta.features,
            model.meta.target,
        )?;
        let measured = frame.measured();
        let p = model.predict(&measured)?;
        let m = Metrics::compute(&p, &measured.y);
        let mut entry = json!({
            "file": e.name,
            "accuracy": m.accuracy,
            "mape": m.mape,
            "r2": m.r2,
            "within_5": m.within_5,
            "within_10": m.within_10,
            "n": m.n,
        });
        if let Some(prob) = model.predict_censored(&frame)? {
            let n = frame.len();
            let correct = (0..n)
                .filter(|&i| (prob[i] >= 0.5) == frame.censored[i])
                .count();
            entry["censored"] = json!({
                "n": n,
                "actual": frame.censored.iter().filter(|c| **c).count(),
                "predicted": prob.iter().filter(|p| **p >= 0.5).count(),
                "classification_accuracy": correct as f64 / n.max(1) as f64,
            });
        }
        human.push_str(&format!(
            "{:<50} {:>8.3} {:>8.2} {:>7.3} {:>8.3} {:>9.3} {:>6}\n",
            e.name, m.accuracy, m.mape, m.r2, m.within_5, m.within_10, m.n
        ));
        if let Some(dir) = &a.plot {
            let path = dir.join(format!("{}-predicted.svg", file_stem(&e.name)));
            plot::predicted_vs_measured(
                &path,
                &format!("{} ({})", e.name, model.meta.kind.name()),
                &measured.y,
                &[(model.meta.kind.name().to_string(), p.clone())],
            )?;
        }
        all_p.extend(p);
        all_y.extend(measured.y);
        files.push(entry);
    }
    let overall = Metrics::compute(&all_p, &all_y);
    human.push_str(&format!(
        "{:<50} {:>8.3} {:>8.2} {:>7.3} {:>8.3} {:>9.3} {:>6}\n",
        "(all)",
        overall.accuracy,
        overall.mape,
        overall.r2,
        overall.within_5,
        overall.within_10,
        overall.n
    ));
    print(
        json!({
            "model": a.model,
            "kind": model.meta.kind,
            "target": model.meta.target,
            "files": files,
            "overall": overall,
        }),
        human,
        fmt,
    )
}

fn run_explain(a: ExplainArgs, fmt: Format) -> Result<(), PredictError> {
    let model = TrainedModel::load(&a.model)?;
    let experiments = load(&a.data)?;
    let frame = Frame::build(&experiments, &model.meta.features, model.meta.target)?;
    let measured = frame.measured();
    if measured.is_empty() {
        return Err(PredictError::Model(
            "no samples with a measured target in the data".into(),
        ));
    }
    let importance = permutation_importance(&model, &measured, 3, a.seed)?;
    let shap = shapley(&model, &measured, a.rows.max(1), a.seed)?;
    // The PCA view is coloured by latency regime whatever the model's target.
    let common = common_counters(&experiments);
    let by_latency = Frame::build(&experiments, &common, Target::Latency)?;
    let (all, classes) = if by_latency.is_empty() {
        let t = Frame::build(&experiments, &common, Target::Throughput)?;
        let n = t.len();
        (t, vec![3; n])
    } else {
        let c = latency_classes(&by_latency);
        (by_latency, c)
    };
    let view = pca(&all);
    let mut order: Vec<usize> = (0..shap.features.len()).collect();
    order.sort_by(|&i, &j| shap.mean_abs[j].total_cmp(&shap.mean_abs[i]));
    if let Some(dir) = &a.plot {
        std::fs::create_dir_all(dir).map_err(|e| PredictError::Io(dir.clone(), e))?;
        plot::importance_bars(
            &dir.join("permutation-importance.svg"),
            "permutation importance (accuracy lost)",
            &importance
                .iter()
                .map(|i| i.feature.clone())
                .collect::<Vec<_>>(),
            &importance
                .iter()
                .map(|i| i.accuracy_drop)
                .collect::<Vec<_>>(),
        )?;
        plot::importance_bars(
            &dir.join("shapley.svg"),
            "mean |Shapley value|",
            &order
                .iter()
                .map(|&i| shap.features[i].clone())
                .collect::<Vec<_>>(),
            &order.iter().map(|&i| shap.mean_abs[i]).collect::<Vec<_>>(),
        )?;
        plot::pca_scatter(
            &dir.join("pca.svg"),
            &format!(
                "PCA of the counters ({:.0}% + {:.0}% of variance)",
                100.0 * view.explained[0],
                100.0 * view.explained[1]
            ),
            &view.points,
            &classes,
            &[
                "latency measured, below median",
                "latency measured, above median",
                "probe lost (censored)",
                "no latency",
            ],
        )?;
    }
    let mut human = String::from("permutation importance (accuracy lost when shuffled):\n");
    for i in &importance {
        human.push_str(&format!("  {:<40} {:>8.4}\n", i.feature, i.accuracy_drop));
    }
    human.push_str(&format!(
        "Shapley values ({}; baseline prediction {:.3} at the training means), mean |value|:\n",
        if shap.exact {
            "exact"
        } else {
            "sampled permutations"
        },
        shap.baseline
    ));
    for &i in &order {
        human.push_str(&format!(
            "  {:<40} {:>10.4}\n",
            shap.features[i], shap.mean_abs[i]
        ));
    }
    for (line, pred, phi) in &shap.rows {
        let top = order
            .iter()
            .take(3)
            .map(|&i| format!("{} {:+.3}", shap.features[i], phi[i]))
            .collect::<Vec<_>>()
            .join(", ");
        human.push_str(&format!(
            "  line {line}: prediction {pred:.3} = baseline + ({top}, …)\n"
        ));
    }
    human.push_str(&format!(
        "PCA: PC1 explains {:.1}%, PC2 {:.1}% of the variance of {} counters\n",
        100.0 * view.explained[0],
        100.0 * view.explained[1],
        view.features.len()
    ));
    print(
        json!({
            "model": a.model,
            "permutation_importance": importance,
            "shapley": shap,
            "pca": {"features": view.features, "explained": view.explained},
        }),
        human,
        fmt,
    )
}

/// 0/1: measured latency below/above the median; 2: censored; 3: absent
/// (throughput-only data).
fn latency_classes(frame: &Frame) -> Vec<usize> {
    let mut lat: Vec<f64> = (0..frame.len())
        .filter(|&i| !frame.censored[i])
        .map(|i| frame.y[i])
        .collect();
    lat.sort_by(f64::total_cmp);
    let median = lat.get(lat.len() / 2).copied().unwrap_or(0.0);
    (0..frame.len())
        .map(|i| {
            if frame.censored[i] {
                2
            } else if frame.y[i] > median {
                1
            } else {
                0
            }
        })
        .collect()
}
