//! `nfc smartnic`: Clara's learned SmartNIC advice evaluated on Clara-format
//! measurement directories (docs/smartnic.md).
//!
//! `eval-scale-out` and `eval-colocation` are a stable contract for an
//! evaluation harness: train on Clara's released data (or load a saved model),
//! predict for every NF or group of `--data`, score against its measurements.
//! Training leaves out every NF (group) whose program also appears in
//! `--data`, so the score is always on held-out programs.

use super::{out, Format};
use nfc_core::{Diagnostic, Span};
use nfc_smartnic::clara_data::{self, ColocationGroup, DataError, Program};
use nfc_smartnic::colocation::{self, Ranker};
use nfc_smartnic::scale_out::{self, LabelledNf, ScaleOutModel, Suggester, DEFAULT_SEED};
use serde_json::json;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: SmartnicCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum SmartnicCommand {
    /// Suggest a core count per NF of a directory laid out like scale_out/dataset_hit and score it.
    EvalScaleOut(EvalArgs),
    /// Rank the pairs of each group of a directory laid out like nf_colocation/dataset and score it.
    EvalColocation(EvalArgs),
    /// Measure access coalescing on built-in NFs: cache lines and cachegrind D1 per packet, original vs packed.
    EvalCoalescing(super::smartnic_coalesce::CoalesceArgs),
    /// Train the scale-out model on Clara's data and save it.
    TrainScaleOut(TrainArgs),
    /// Train the colocation ranker on Clara's data and save it.
    TrainColocation(TrainArgs),
}

#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// The directory to evaluate (trainingset_feature_<i> / trainingset_tag_<i> pairs).
    #[arg(long)]
    pub data: PathBuf,
    /// Clara's data directory to train on (holding scale_out/ and nf_colocation/).
    /// Default: $NFC_CLARA_DATA, else ../shared/data/clara next to the nfc repository.
    #[arg(long, conflicts_with = "model")]
    pub train: Option<PathBuf>,
    /// A saved model (`nfc smartnic train-…`) instead of training.
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// Training seed.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
}

#[derive(Debug, clap::Args)]
pub struct TrainArgs {
    /// Where to write the model (JSON: features, seed, hyper-parameters, trees).
    #[arg(short, long)]
    pub output: PathBuf,
    /// Clara's data directory (default as for `eval-…`).
    #[arg(long)]
    pub train: Option<PathBuf>,
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
}

fn data_error(e: DataError) -> anyhow::Error {
    let span = if e.line > 0 {
        Span::point(e.file.display().to_string(), e.line as u32, 1)
    } else {
        Span::file_only(e.file.display().to_string())
    };
    nfc::Failure::diag(
        Diagnostic::error("E0800", e.message)
            .with_span(span)
            .with_hint("the format is Clara's released one: see shared/data/clara/README.md and docs/smartnic.md"),
    )
    .into()
}

fn failure(code: &str, msg: impl Into<String>, hint: &str) -> anyhow::Error {
    nfc::Failure::diag(Diagnostic::error(code, msg).with_hint(hint)).into()
}

/// Clara's data directory: `--train`, else $NFC_CLARA_DATA, else `../shared/data/clara` beside the repository.
fn clara_root(train: &Option<PathBuf>) -> anyhow::Result<PathBuf> {
    nfc::emit::agilio_models::clara_root(train.as_deref()).map_err(|e| {
        failure(
            "E0802",
            e,
            "pass --train <dir with scale_out/ and nf_colocation/>, set NFC_CLARA_DATA, or --model <saved model>",
        )
    })
}

fn read_model(path: &Path) -> anyhow::Result<String> {
    std::fs::read_to_string(path).map_err(|e| {
        failure(
            "E0801",
            format!("cannot read the model {}: {e}", path.display()),
            "give a file written by `nfc smartnic train-…`",
        )
    })
}

fn load_training_nfs(
    root: &Path,
    exclude: &HashSet<Program>,
) -> anyhow::Result<(Vec<LabelledNf>, usize)> {
    let mut nfs = Vec::new();
    let mut excluded = 0;
    for (workload, dir) in [
        (0.0, "scale_out/dataset_hit"),
        (1.0, "scale_out/dataset_miss"),
    ] {
        for nf in clara_data::load_scale_out(&root.join(dir)).map_err(data_error)? {
            if exclude.contains(&nf.program) {
                excluded += 1;
                continue;
            }
            nfs.push(LabelledNf {
                name: format!("{dir}/{}", nf.id),
                nf,
                workload,
            });
        }
    }
    Ok((nfs, excluded))
}

fn load_training_groups(
    root: &Path,
    exclude: &HashSet<Program>,
) -> anyhow::Result<(Vec<ColocationGroup>, usize)> {
    let all =
        clara_data::load_colocation(&root.join("nf_colocation/dataset")).map_err(data_error)?;
    let n = all.len();
    let kept: Vec<ColocationGroup> = all
        .into_iter()
        .filter(|g| !g.solo.iter().any(|(p, _)| exclude.contains(p)))
        .collect();
    let excluded = n - kept.len();
    Ok((kept, excluded))
}

fn nothing_left(excluded: usize) -> anyhow::Error {
    failure(
        "E0802",
        format!("all {excluded} training programs also appear in --data, so nothing is left to train on"),
        "evaluate data the model has not seen, pass --train <other data>, or --model <saved model>",
    )
}

fn model_failure(e: impl std::fmt::Display) -> anyhow::Error {
    failure(
        "E0801",
        format!("training failed: {e}"),
        "the training data has no usable rows",
    )
}

pub fn run(args: Args, fmt: Format) -> anyhow::Result<ExitCode> {
    match args.command {
        SmartnicCommand::EvalScaleOut(a) => eval_scale_out(a, fmt),
        SmartnicCommand::EvalColocation(a) => eval_colocation(a, fmt),
        SmartnicCommand::EvalCoalescing(a) => super::smartnic_coalesce::run(a, fmt),
        SmartnicCommand::TrainScaleOut(a) => {
            let (nfs, _) = load_training_nfs(&clara_root(&a.train)?, &HashSet::new())?;
            let (model, _) = scale_out::train_default(&nfs, a.seed).map_err(model_failure)?;
            write_model(&a.output, &model.to_json()?, fmt)
        }
        SmartnicCommand::TrainColocation(a) => {
            let (groups, _) = load_training_groups(&clara_root(&a.train)?, &HashSet::new())?;
            let (ranker, _) = colocation::train_default(&groups, a.seed).map_err(model_failure)?;
            write_model(&a.output, &ranker.to_json()?, fmt)
        }
    }
}

fn write_model(path: &Path, json: &str, fmt: Format) -> anyhow::Result<ExitCode> {
    std::fs::write(path, json).map_err(|e| {
        failure(
            "E0801",
            format!("cannot write {}: {e}", path.display()),
            "check the output path",
        )
    })?;
    match fmt {
        Format::Json => out(&format!(
            "{}\n",
            json!({ "model": path.display().to_string() })
        ))?,
        Format::Human => out(&format!("wrote {}\n", path.display()))?,
    }
    Ok(ExitCode::SUCCESS)
}

fn eval_scale_out(a: EvalArgs, fmt: Format) -> anyhow::Result<ExitCode> {
    let data = clara_data::load_scale_out(&a.data).map_err(data_error)?;
    let eval: Vec<LabelledNf> = data
        .into_iter()
        .map(|nf| LabelledNf {
            name: nf.id.to_string(),
            nf,
            workload: 0.0,
        })
        .collect();
    let (model, origin) = match &a.model {
        Some(path) => {
            let m = ScaleOutModel::from_json(&read_model(path)?).map_err(|e| {
                failure(
                    "E0801",
                    format!("{}: {e}", path.display()),
                    "give a file written by `nfc smartnic train-scale-out`",
                )
            })?;
            (m, json!({ "model": path.display().to_string() }))
        }
        None => {
            let exclude: HashSet<Program> = eval.iter().map(|n| n.nf.program.clone()).collect();
            let (nfs, excluded) = load_training_nfs(&clara_root(&a.train)?, &exclude)?;
            if nfs.is_empty() {
                return Err(nothing_left(excluded));
            }
            let (m, sel) = scale_out::train_default(&nfs, a.seed).map_err(model_failure)?;
            (
                m,
                json!({ "trained_nfs": nfs.len(), "excluded_overlapping_nfs": excluded, "validation_power_loss": sel.validation_power_loss }),
            )
        }
    };
    if let Some(nf) = eval.iter().find(|n| !model.accepts(&n.nf.program)) {
        return Err(failure(
            "E0801",
            format!(
                "NF {} has a program shape the model was not trained on",
                nf.name
            ),
            "train on data of the same format",
        ));
    }
    let report = scale_out::evaluate(&Suggester::Model(&model), &eval);
    match fmt {
        Format::Json => {
            let v = json!({
                "nfs": report.nfs,
                "mean_throughput_loss": report.mean_throughput_loss,
                "mean_abs_throughput_loss": report.mean_abs_throughput_loss,
                "mean_power_loss": report.mean_power_loss,
                "exact": report.exact,
                "model": { "kind": model.kind, "params": model.params, "seed": model.seed, "features": model.features.len(), "origin": origin },
            });
            out(&format!("{}\n", serde_json::to_string_pretty(&v)?))?
        }
        Format::Human => {
            let mut s = format!(
                "{:<10} {:>9} {:>6} {:>16} {:>11}\n",
                "nf", "suggested", "best", "throughput_loss", "power_loss"
            );
            for o in &report.nfs {
                s += &format!(
                    "{:<10} {:>9} {:>6} {:>15.2}% {:>10.2}%\n",
                    o.nf,
                    o.suggested_cores,
                    o.best_cores,
                    100.0 * o.throughput_loss,
                    100.0 * o.power_loss
                );
            }
            s += &format!(
                "{} NFs: mean throughput loss {:.2}% (|loss| {:.2}%), mean power loss {:.2}%, exact {:.1}%\n",
                report.nfs.len(),
                100.0 * report.mean_throughput_loss,
                100.0 * report.mean_abs_throughput_loss,
                100.0 * report.mean_power_loss,
                100.0 * report.exact
            );
            out(&s)?
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn eval_colocation(a: EvalArgs, fmt: Format) -> anyhow::Result<ExitCode> {
    let groups = clara_data::load_colocation(&a.data).map_err(data_error)?;
    let (ranker, origin) = match &a.model {
        Some(path) => {
            let r = Ranker::from_json(&read_model(path)?).map_err(|e| {
                failure(
                    "E0801",
                    format!("{}: {e}", path.display()),
                    "give a file written by `nfc smartnic train-colocation`",
                )
            })?;
            (r, json!({ "model": path.display().to_string() }))
        }
        None => {
            let exclude: HashSet<Program> = groups
                .iter()
                .flat_map(|g| g.solo.iter().map(|(p, _)| p.clone()))
                .collect();
            let (train, excluded) = load_training_groups(&clara_root(&a.train)?, &exclude)?;
            if train.is_empty() {
                return Err(nothing_left(excluded));
            }
            let (r, _) = colocation::train_default(&train, a.seed).map_err(model_failure)?;
            (
                r,
                json!({ "trained_groups": train.len(), "excluded_overlapping_groups": excluded }),
            )
        }
    };
    let report = colocation::evaluate(&ranker, &groups);
    let random = colocation::random_baseline(&groups);
    match fmt {
        Format::Json => {
            let v = json!({
                "groups": report.groups,
                "top1": report.top1,
                "top3": report.top3,
                "random_top1": random.top1,
                "random_top3": random.top3,
                "model": { "kind": ranker.kind, "params": ranker.params, "seed": ranker.seed, "features": ranker.features.len(), "origin": origin },
            });
            out(&format!("{}\n", serde_json::to_string_pretty(&v)?))?
        }
        Format::Human => out(&format!(
            "{} groups: top-1 {:.1}%, top-3 {:.1}% (a random order: {:.1}%, {:.1}%)\n",
            report.groups,
            100.0 * report.top1,
            100.0 * report.top3,
            100.0 * random.top1,
            100.0 * random.top3
        ))?,
    }
    Ok(ExitCode::SUCCESS)
}
