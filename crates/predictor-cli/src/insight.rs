//! `nfc predict insight train|predict`: Clara's compute-instruction model
//! (crates/predictor/src/insight.rs) on insight IR produced by
//! `nfc_reducer::insight_ir` (JSON lists of `nfc_core::insight::IrUnit`).

use super::{out, Format};
use anyhow::Context;
use nfc_core::insight::IrUnit;
use nfc_predictor::insight::{
    evaluate_models, samples, split_by_program, with_unknown_share, wmape, Arch, LstmShape,
    SeqModel, TrainConfig, MODELS,
};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Train LSTM, DNN, CNN and GBDT on synthesised programs; score each on held-out NFs.
    Train(TrainArgs),
    /// Predict compute instructions per function (and per block) with a saved LSTM.
    Predict(PredictArgs),
    /// The unknown-word probe: saved networks' validation WMAPE when a
    /// share of the validation programs' words is shown as `<unk>`.
    Unknown(UnknownArgs),
}

#[derive(Debug, clap::Args)]
pub struct UnknownArgs {
    /// Directories with saved networks (`<arch>.json`, `<arch>.ot`).
    #[arg(long, value_delimiter = ',')]
    pub models: Vec<PathBuf>,
    /// The synthesised programs the networks were trained on (the
    /// validation programs are split off as in training).
    #[arg(long)]
    pub synth: PathBuf,
    /// Percentages of words shown as `<unk>`.
    #[arg(long, value_delimiter = ',', default_value = "0,5,10,20")]
    pub pct: Vec<f64>,
    #[arg(long, default_value_t = 19)]
    pub seed: u64,
}

#[derive(Debug, clap::Args)]
pub struct TrainArgs {
    /// JSON list of lowered synthesised programs (training and validation).
    #[arg(long)]
    pub synth: PathBuf,
    /// JSON list of lowered held-out NFs (scored only).
    #[arg(long)]
    pub heldout: PathBuf,
    /// Directory for the models and `evaluation.json`.
    #[arg(long)]
    pub out: PathBuf,
    /// Small networks and few epochs (tests).
    #[arg(long)]
    pub tiny: bool,
    /// Override the number of epochs.
    #[arg(long)]
    pub epochs: Option<usize>,
    /// Override the hidden width of the networks.
    #[arg(long)]
    pub hidden: Option<i64>,
    /// Choose each model's budget on the validation programs alike: up to
    /// 30 epochs with early stopping and a learning-rate schedule, hidden
    /// width from {32, 64}, the GBDT's depth/trees/rate from a grid.
    #[arg(long, conflicts_with_all = ["tiny", "hidden"])]
    pub select: bool,
    #[arg(long, default_value_t = 19)]
    pub seed: u64,
    /// The LSTM's architecture, comma-separated: `block` (one sequence per
    /// block) or `function` (one per function), `bidir`, `layers<N>`,
    /// `embed<N>`, `block-readout`, `unk<N>` (N% of training words shown as
    /// `<unk>`) (default: the configuration's).
    #[arg(long)]
    pub lstm: Option<String>,
    /// Early-stopping patience in epochs (every network alike; 0: run every epoch).
    #[arg(long)]
    pub patience: Option<usize>,
    /// Clip each step's gradient norm to this (every network alike).
    #[arg(long)]
    pub clip: Option<f64>,
    /// The starting learning rate (every network alike; the schedule
    /// halves it from there).
    #[arg(long)]
    pub learning_rate: Option<f64>,
    /// Hidden widths to choose from on validation (every network alike),
    /// comma-separated; overrides the configuration's grid.
    #[arg(long, value_delimiter = ',', conflicts_with_all = ["tiny", "hidden"])]
    pub hidden_grid: Vec<i64>,
    /// Train only these models (LSTM, DNN, CNN, GBDT), comma-separated.
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
}

#[derive(Debug, clap::Args)]
pub struct PredictArgs {
    /// Directory with a saved LSTM (`lstm.json`, `lstm.ot`).
    #[arg(long)]
    pub model: PathBuf,
    /// JSON list of lowered units to predict.
    #[arg(long)]
    pub units: PathBuf,
}

fn read_units(p: &Path) -> anyhow::Result<Result<Vec<IrUnit>, String>> {
    let text = std::fs::read(p).with_context(|| format!("reading {}", p.display()))?;
    Ok(serde_json::from_slice(&text)
        .map_err(|e| format!("{}: not a list of insight units: {e}", p.display())))
}

/// [`read_units`] with its error printed: `Err` is the exit code to return.
fn units_or_exit(p: &Path) -> anyhow::Result<Result<Vec<IrUnit>, ExitCode>> {
    Ok(read_units(p)?.map_err(|e| {
        eprintln!("error: {e}");
        ExitCode::from(1)
    }))
}

pub fn run(args: Args, fmt: Format) -> anyhow::Result<ExitCode> {
    match args.command {
        Command::Train(a) => {
            let mut lstm = None;
            if let Some(spec) = &a.lstm {
                match LstmShape::parse(spec) {
                    Ok(s) => lstm = Some(s),
                    Err(e) => {
                        eprintln!("error: --lstm: {e}");
                        return Ok(ExitCode::from(2));
                    }
                }
            }
            if let Some(c) = a.clip {
                if !(c.is_finite() && c >= 0.0) {
                    eprintln!("error: --clip: expected a non-negative number, got {c}");
                    return Ok(ExitCode::from(2));
                }
            }
            if let Some(r) = a.learning_rate {
                if !(r.is_finite() && r > 0.0) {
                    eprintln!("error: --learning-rate: expected a positive number, got {r}");
                    return Ok(ExitCode::from(2));
                }
            }
            let (synth, held) = match (read_units(&a.synth)?, read_units(&a.heldout)?) {
                (Ok(s), Ok(h)) => (s, h),
                (Err(e), _) | (_, Err(e)) => {
                    eprintln!("error: {e}");
                    return Ok(ExitCode::from(1));
                }
            };
            let mut cfg = if a.tiny {
                TrainConfig::tiny()
            } else if a.select {
                TrainConfig::selected()
            } else {
                TrainConfig::standard()
            };
            cfg.seed = a.seed;
            cfg.progress = true;
            if let Some(e) = a.epochs {
                cfg.epochs = e;
            }
            if let Some(h) = a.hidden {
                cfg.hidden = h;
            }
            if !a.hidden_grid.is_empty() {
                cfg.hidden_grid = a.hidden_grid.clone();
            }
            if let Some(l) = lstm {
                cfg.lstm = l;
            }
            if let Some(p) = a.patience {
                cfg.patience = p;
            }
            if let Some(c) = a.clip {
                cfg.clip = c;
            }
            if let Some(r) = a.learning_rate {
                cfg.learning_rate = r;
            }
            let only: Vec<&str> = if a.only.is_empty() {
                MODELS.to_vec()
            } else {
                a.only.iter().map(String::as_str).collect()
            };
            let t0 = std::time::Instant::now();
            let (eval, _) = match evaluate_models(&synth, &held, &cfg, Some(&a.out), &only) {
                Ok(x) => x,
                Err(e) => {
                    eprintln!("error: {e}");
                    return Ok(ExitCode::from(1));
                }
            };
            let secs = t0.elapsed().as_secs_f64();
            let body = json!({ "evaluation": eval, "config": cfg, "train_seconds": secs });
            std::fs::create_dir_all(&a.out)?;
            std::fs::write(
                a.out.join("evaluation.json"),
                serde_json::to_vec_pretty(&body)?,
            )?;
            match fmt {
                Format::Json => out(&format!("{}\n", serde_json::to_string_pretty(&body)?))?,
                Format::Human => {
                    let models: Vec<&String> = eval.overall.keys().collect();
                    let mut s = format!(
                        "vocabulary {} words; {} training / {} validation functions; {:.0}s\n| NF | functions | instructions |",
                        eval.vocabulary, eval.train_functions, eval.val_functions, secs
                    );
                    for m in &models {
                        s.push_str(&format!(" {m} |"));
                    }
                    s.push('\n');
                    for n in &eval.per_nf {
                        s.push_str(&format!(
                            "| {} | {} | {:.0} |",
                            n.nf, n.functions, n.instructions
                        ));
                        for m in &models {
                            s.push_str(&format!(" {:.1}% |", 100.0 * n.wmape[*m]));
                        }
                        s.push('\n');
                    }
                    s.push_str("| overall | | |");
                    for m in &models {
                        s.push_str(&format!(" {:.1}% |", 100.0 * eval.overall[*m]));
                    }
                    s.push('\n');
                    out(&s)?;
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Unknown(a) => {
            let synth = match units_or_exit(&a.synth)? {
                Ok(u) => u,
                Err(code) => return Ok(code),
            };
            let (_, va) = split_by_program(&synth, 5);
            let mut rows = vec![];
            for dir in &a.models {
                for arch in [Arch::Lstm, Arch::Dnn, Arch::Cnn] {
                    let Ok(m) = SeqModel::load(dir, arch) else {
                        continue;
                    };
                    let ss = samples(&va, &m.vocab, true);
                    let y: Vec<f64> = ss.iter().map(|s| s.y).collect();
                    for pct in &a.pct {
                        let masked = with_unknown_share(&ss, *pct, a.seed);
                        let p = m.predict(&masked);
                        let bias = p.iter().zip(&y).map(|(p, y)| p - y).sum::<f64>()
                            / y.iter().sum::<f64>();
                        rows.push(json!({
                            "model": dir.display().to_string(),
                            "arch": arch.name(),
                            "unknown_pct": pct,
                            "wmape": wmape(&p, &y),
                            "bias": bias,
                        }));
                    }
                }
            }
            let _ = fmt;
            out(&format!("{}\n", serde_json::to_string_pretty(&rows)?))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Predict(a) => {
            let units = match units_or_exit(&a.units)? {
                Ok(u) => u,
                Err(code) => return Ok(code),
            };
            let model = match SeqModel::load(&a.model, Arch::Lstm) {
                Ok(m) => m,
                Err(e) => {
                    eprintln!("error: {e}");
                    return Ok(ExitCode::from(1));
                }
            };
            let ss = samples(&units, &model.vocab, false);
            let preds = model.predict(&ss);
            let mut list = vec![];
            for (s, p) in ss.iter().zip(&preds) {
                let blocks = model.predict_blocks(s).unwrap_or_default();
                list.push(json!({
                    "unit": s.unit,
                    "function": s.function,
                    "compute_instructions": p,
                    "blocks": blocks,
                }));
            }
            let _ = fmt;
            out(&format!("{}\n", serde_json::to_string_pretty(&list)?))?;
            Ok(ExitCode::SUCCESS)
        }
    }
}
