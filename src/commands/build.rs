//! `nfc build`: compile a chain (chain.yaml) through [`nfc::pipeline`] or
//! rewrite a FastClick configuration (.click) for a target, writing the
//! stages' outputs on request (`--emit facts,reduced,plan`). This file maps
//! arguments to pipeline options and renders; the stages live in the library.

use super::analyze::AnalyzerArgs;
use super::{out, warnings, Format};
use anyhow::Context;
use nfc::pipeline::{self, Pipeline, PipelineOptions, ReducePolicy, ReduceRecord};
use nfc::reduce::{ReduceMode, ReduceStageOptions};
use nfc_core::Diagnostic;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The chain: a chain.yaml, or an existing FastClick .click configuration to rewrite.
    pub input: PathBuf,
    /// What to emit: a FastClick config, a flash-rt AF_XDP deployment, or an Agilio SmartNIC offload plan
    /// (optional when `--emit` says what to write).
    #[arg(long, value_enum)]
    pub target: Option<Target>,
    /// Output directory (created if missing).
    #[arg(short, long, default_value = "nfc-out")]
    pub output: PathBuf,
    /// Also write these stages' outputs as JSON into the output directory
    /// (comma-separated: facts, reduced, plan, prediction).
    #[arg(long, value_delimiter = ',', value_enum)]
    pub emit: Vec<Stage>,
    /// With `--emit reduced`: `strict` fails the build when the reducer cannot take the chain or
    /// fails on it (exit 1); `best-effort` warns with the same diagnostic and builds the chain
    /// unreduced.
    #[arg(long, value_enum, default_value_t = ReduceArg::Strict)]
    pub reduce: ReduceArg,
    /// Place and deploy the chain's original NFs. By default every linear segment of two or more
    /// C NFs is reduced into one module, and the reduced chain is what is placed and deployed.
    #[arg(long, conflicts_with_all = ["dump_after", "strip_observability"])]
    pub no_reduce: bool,
    /// Print the reduced chain's LLVM IR right after this reducer pass to stdout (implies
    /// `--emit reduced`; an unknown name lists the passes).
    #[arg(long, value_name = "PASS")]
    pub dump_after: Option<String>,
    /// With `--emit reduced`: remove logging and statistics output (printf, syslog, ...) that
    /// cannot influence verdicts, packets or state. Without it such logic is reported, not removed.
    #[arg(long)]
    pub strip_observability: bool,
    /// For a .click input: where the FastClick element sources live (searched for the element classes).
    #[arg(long)]
    pub source_root: Option<PathBuf>,
    /// Cores to plan for when the input is a .click file (chain files say it in `resources`).
    #[arg(long, default_value_t = 2)]
    pub cores: u32,
    /// With `--emit prediction`: the flash cost model to use (default: the one nfc ships,
    /// data/flash-cost-model.json; `cargo xtask bench profile-data` fits one on this machine).
    #[arg(long, value_name = "MODEL_JSON")]
    pub cost_model: Option<PathBuf>,
    #[command(flatten)]
    pub analyzer: AnalyzerArgs,
    #[command(flatten)]
    pub proof: super::proof::ProofArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Target {
    /// A FastClick .click configuration with RSS and per-element sharing.
    Fastclick,
    /// A flash-rt deployment (AF_XDP monitor + unprivileged NFs) and Kubernetes manifests.
    Flash,
    /// A Netronome Agilio offload plan: state placement, Micro-C header (docs/targets/agilio.md).
    Agilio,
}

/// What a reducer failure does to the build.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ReduceArg {
    /// Any reducer failure is a build failure.
    Strict,
    /// A reducer failure is a warning; the chain is built unreduced.
    BestEffort,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Stage {
    /// The analyzer's facts per NF (facts.json), and when the chain was reduced the facts the
    /// placer used for the reduced chain (deployed-facts.json).
    Facts,
    /// The reducer's output: reduced.ll, reduced.so, reduced.report.json and reduced.chain.yaml
    /// (one NF running the reduced module, for `nfc run`).
    Reduced,
    /// The placer's plan.
    Plan,
    /// The predictor's estimate for flash-rt (per-NF callgrind costs through the cost model).
    Prediction,
}

fn write(dir: &Path, name: &str, text: &str) -> anyhow::Result<PathBuf> {
    let p = dir.join(name);
    std::fs::write(&p, text).with_context(|| format!("writing {}", p.display()))?;
    Ok(p)
}

/// The pipeline options these arguments ask for.
fn pipeline_options(args: &Args) -> anyhow::Result<PipelineOptions> {
    let explicit = args.emit.contains(&Stage::Reduced) || args.dump_after.is_some();
    let reduce = match (args.no_reduce, explicit, args.reduce) {
        (true, _, _) => ReducePolicy::Off,
        (false, false, _) => ReducePolicy::On(ReduceMode::Auto),
        (false, true, ReduceArg::Strict) => ReducePolicy::On(ReduceMode::Strict),
        (false, true, ReduceArg::BestEffort) => ReducePolicy::On(ReduceMode::BestEffort),
    };
    Ok(PipelineOptions {
        analyze: args.analyzer.options()?,
        reduce,
        reduce_stage: ReduceStageOptions {
            dump_after: args.dump_after.clone(),
            strip_observability: args.strip_observability,
            ..Default::default()
        },
        proof: args.proof.options(),
        facts_override: args.proof.facts()?,
        predict_exe: Some(std::env::current_exe()?),
        cost_model: args.cost_model.clone(),
        ..PipelineOptions::new(&args.analyzer.cache_dir, &args.output)
    })
}

pub fn run(args: Args, fmt: Format) -> anyhow::Result<ExitCode> {
    if args.emit.contains(&Stage::Prediction)
        && args.input.extension().is_some_and(|e| e == "click")
    {
        return Err(nfc::Failure::not_available("predict").into());
    }
    let explicit_reduce = args.emit.contains(&Stage::Reduced) || args.dump_after.is_some();
    if args.target.is_none() && args.emit.is_empty() && !explicit_reduce {
        return Err(nfc::Failure::diag(
            Diagnostic::error("E0503", "nothing to build: no --target and no --emit")
                .with_hint("pass --target fastclick|flash|agilio, or --emit facts,reduced,plan"),
        )
        .into());
    }
    if args.no_reduce && args.emit.contains(&Stage::Reduced) {
        return Err(nfc::Failure::diag(
            Diagnostic::error(
                "E0505",
                "--no-reduce and --emit reduced contradict each other",
            )
            .with_hint("drop one of them"),
        )
        .into());
    }
    if args.input.extension().is_some_and(|e| e == "click") {
        return build_click(&args, fmt);
    }
    let mut p = Pipeline::new(pipeline_options(&args)?);
    p.load(&args.input)?;
    std::fs::create_dir_all(&args.output)
        .with_context(|| format!("creating {}", args.output.display()))?;
    let mut written = vec![];
    let human = fmt == Format::Human;
    let record = p
        .reduce(&mut |pr| {
            if human {
                eprintln!("{}", crate::render::reduce_progress(&pr));
            }
        })?
        .clone();
    let mut dumped = false;
    match &record {
        ReduceRecord::Reduced(r) => {
            for seg in &r.segments {
                written.extend([
                    seg.files.ll.clone(),
                    seg.files.so.clone(),
                    seg.files.report.clone(),
                ]);
                if human {
                    eprint!(
                        "{}",
                        crate::render::reduce_summary(&seg.summary, &seg.files)
                    );
                }
                if let Some(ir) = &seg.dump {
                    dumped = true;
                    if human {
                        out(ir)?;
                    }
                }
            }
            written.push(r.chain_file.clone());
            if human {
                eprintln!("{}", crate::render::chain_check(&r.check, r.segments.len()));
            }
        }
        ReduceRecord::Unreduced {
            report: Some(report),
            ..
        } => written.push(report.clone()),
        _ => {}
    }
    if args.emit.contains(&Stage::Prediction) {
        let pred = p.predict()?;
        if human {
            eprintln!("{}", prediction_line(&pred));
        }
        written.push(write(
            &args.output,
            "prediction.json",
            &serde_json::to_string_pretty(&pred)?,
        )?);
    }
    let needs_plan = args.target.is_some()
        || args.emit.contains(&Stage::Facts)
        || args.emit.contains(&Stage::Plan);
    if needs_plan {
        let placement = p.place()?.clone();
        if human && args.proof.plan_proof != super::proof::ProofArg::Off {
            eprintln!("{}", placement.proof.line());
        }
        if args.emit.contains(&Stage::Facts) {
            let facts = p.analyze()?.to_vec();
            written.push(write(
                &args.output,
                "facts.json",
                &serde_json::to_string_pretty(&facts)?,
            )?);
            // What the placer saw: a reduced NF's facts derived from its members'.
            if matches!(record, ReduceRecord::Reduced(_)) {
                let deployed = p.deployed_facts()?.to_vec();
                written.push(write(
                    &args.output,
                    "deployed-facts.json",
                    &serde_json::to_string_pretty(&deployed)?,
                )?);
            }
        }
        if args.emit.contains(&Stage::Plan) {
            written.push(write(
                &args.output,
                "plan.json",
                &serde_json::to_string_pretty(&placement.plan)?,
            )?);
        }
        if let Some(target) = args.target {
            let emitted = p.emit(match target {
                Target::Fastclick => pipeline::Target::Fastclick,
                Target::Flash => pipeline::Target::Flash,
                Target::Agilio => pipeline::Target::Agilio,
            })?;
            for note in emitted.notes {
                eprintln!("note: {note}");
            }
            written.extend(emitted.files);
        }
    }
    warnings(p.diagnostics(), fmt);
    match fmt {
        Format::Json if explicit_reduce => {
            out(&format!(
                "{}\n",
                serde_json::json!({ "written": written, "reduced": reduced_json(&record) })
            ))?;
            Ok(ExitCode::SUCCESS)
        }
        // The IR went to stdout; keep the file list apart from it.
        Format::Human if dumped => {
            for p in &written {
                eprintln!("wrote {}", p.display());
            }
            Ok(ExitCode::SUCCESS)
        }
        _ => report(&written, fmt),
    }
}

/// One line for people: the predicted throughput, its error and bottleneck,
/// and the cap the chain's semantics put on its capacity if any.
pub fn prediction_line(p: &nfc_core::prediction::Prediction) -> String {
    let cap = match &p.cap {
        Some(c) => format!(
            " (capped: {:.1}% of the packets leave the chain when offered its capacity of {:.3} Mpps; {} drops them)",
            c.pass_fraction * 100.0,
            c.offered_mpps,
            c.bottleneck.as_deref().unwrap_or("?")
        ),
        None => String::new(),
    };
    let machine = match &p.machine {
        Some(m) => format!(
            " at this machine's state now (probe {:.0} ns/unit vs {:.0} calibrated: time per packet × {:.2})",
            m.probe_ns_per_unit, m.reference_ns_per_unit, m.scale
        ),
        None => String::new(),
    };
    format!(
        "predict: {:.3} Mpps{machine}{cap} (±{:.0}% measured error), {:.2} µs per packet unloaded, bottleneck {}; model: {}",
        p.throughput_mpps,
        p.error.unwrap_or(f64::NAN) * 100.0,
        p.latency_us,
        p.bottleneck.as_deref().unwrap_or("?"),
        p.model
    )
}

/// The `reduced` object of `--format json`: the pipeline's record, with the
/// whole-chain reduction's summary at the top as before segments existed.
fn reduced_json(record: &ReduceRecord) -> serde_json::Value {
    let mut v = pipeline::reduce_json(record);
    if let ReduceRecord::Reduced(r) = record {
        if let [seg] = r.segments.as_slice() {
            v["summary"] = serde_json::json!(seg.summary);
            v["files"] = serde_json::json!(seg.files);
            v["dump"] = serde_json::json!(seg.dump);
        }
    }
    v
}

fn report(written: &[PathBuf], fmt: Format) -> anyhow::Result<ExitCode> {
    match fmt {
        Format::Json => out(&format!("{}\n", serde_json::json!({ "written": written }))),
        Format::Human => out(&written
            .iter()
            .map(|p| format!("wrote {}\n", p.display()))
            .collect::<String>()),
    }?;
    Ok(ExitCode::SUCCESS)
}

/// FlowMage Fig. 7: rewrite an existing FastClick configuration in place.
fn build_click(args: &Args, fmt: Format) -> anyhow::Result<ExitCode> {
    let mut all = vec![];
    if args.emit.contains(&Stage::Reduced) || args.dump_after.is_some() {
        let d = Diagnostic::error(
            "E0702",
            "a .click configuration is made of Click elements; the reducer needs NFs written in C against nfs/include/nf.h",
        )
        .with_span(nfc_core::Span::file_only(args.input.display().to_string()));
        match args.reduce {
            ReduceArg::Strict => {
                return Err(nfc::Failure::diag(d.with_hint(
                    "pass --reduce=best-effort to rewrite the configuration unreduced",
                ))
                .into())
            }
            ReduceArg::BestEffort => {
                let mut w = d;
                w.severity = nfc_core::Severity::Warning;
                w.message.push_str(" (configuration rewritten unreduced)");
                all.push(w);
            }
        }
    }
    if args.proof.facts.is_some() {
        return Err(nfc::Failure::diag(
            Diagnostic::error(
                "E0302",
                "--facts applies to chain files, not .click configurations",
            )
            .with_hint(
                "drop --facts; the elements' facts come from their sources under --source-root",
            ),
        )
        .into());
    }
    if args.target != Some(Target::Fastclick) {
        return Err(nfc::Failure::diag(
            Diagnostic::error(
                "E0500",
                "a .click input can only be rebuilt for the fastclick target",
            )
            .with_hint("write a chain.yaml for the flash and agilio targets"),
        )
        .into());
    }
    let Some(root) = &args.source_root else {
        return Err(nfc::Failure::diag(
            Diagnostic::error("E0501", "rewriting a .click file needs the element sources")
                .with_hint(
                    "pass --source-root <dir> where the FastClick element sources (.cc/.hh) live",
                ),
        )
        .into());
    };
    let file = args.input.display().to_string();
    let nfc::pipeline::ClickRewrite {
        text: rewritten,
        facts: facts_by_element,
        plan,
        diagnostics: rewrite_diags,
    } = nfc::pipeline::rewrite_click(&args.input, root, args.cores, &args.analyzer.options()?)?;
    std::fs::create_dir_all(&args.output)?;
    let mut written = vec![write(
        &args.output,
        args.input
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("config.click"),
        &rewritten,
    )?];
    written.extend(nfc::emit::rss_files(
        &args.input.file_stem().unwrap_or_default().to_string_lossy(),
        &plan,
        &args.output,
    )?);
    if args.emit.contains(&Stage::Facts) {
        let facts: Vec<_> = facts_by_element.iter().map(|(_, f)| f).collect();
        written.push(write(
            &args.output,
            "facts.json",
            &serde_json::to_string_pretty(&facts)?,
        )?);
    }
    if args.emit.contains(&Stage::Plan) {
        written.push(write(
            &args.output,
            "plan.json",
            &serde_json::to_string_pretty(&plan)?,
        )?);
    }
    all.extend(rewrite_diags);
    if args.proof.plan_proof != super::proof::ProofArg::Off {
        all.push(
            Diagnostic::warning(
                "P203",
                "plan not proven: the reference executor runs NFs built against nfs/include/nf.h, not Click elements",
            )
            .with_span(nfc_core::Span::file_only(file.clone()))
            .with_hint("its shared-nothing placements rest on the analyzer's facts alone; --plan-proof=off silences this"),
        );
    }
    warnings(&all, fmt);
    report(&written, fmt)
}
