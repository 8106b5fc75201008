//! `nfc build`: compile a chain (chain.yaml) or rewrite a FastClick
//! configuration (.click) for a target, writing the stages' outputs on request
//! (`--emit facts,reduced,plan`). `--emit reduced` runs the reducer stage
//! (`nfc::reduce`) and renders its progress and summary on stderr.

use super::analyze::AnalyzerArgs;
use super::{out, warnings, Format};
use anyhow::Context;
use nfc::driver;
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
    /// The analyzer's facts per NF.
    Facts,
    /// The reducer's output: reduced.ll, reduced.so, reduced.report.json and reduced.chain.yaml
    /// (one NF running the reduced module, for `nfc run`).
    Reduced,
    /// The placer's plan.
    Plan,
    /// The predictor's estimate (not available yet).
    Prediction,
}

fn write(dir: &Path, name: &str, text: &str) -> anyhow::Result<PathBuf> {
    let p = dir.join(name);
    std::fs::write(&p, text).with_context(|| format!("writing {}", p.display()))?;
    Ok(p)
}

pub fn run(args: Args, fmt: Format) -> anyhow::Result<ExitCode> {
    if args.emit.contains(&Stage::Prediction) {
        return Err(nfc::Failure::not_available("predict").into());
    }
    let reduce = args.emit.contains(&Stage::Reduced) || args.dump_after.is_some();
    if args.target.is_none() && args.emit.is_empty() && !reduce {
        return Err(nfc::Failure::diag(
            Diagnostic::error("E0503", "nothing to build: no --target and no --emit")
                .with_hint("pass --target fastclick|flash|agilio, or --emit facts,reduced,plan"),
        )
        .into());
    }
    if args.input.extension().is_some_and(|e| e == "click") {
        return build_click(&args, fmt);
    }
    let (chain, mut diags) = driver::load_chain(&args.input)?;
    let opts = args.analyzer.options()?;
    std::fs::create_dir_all(&args.output)
        .with_context(|| format!("creating {}", args.output.display()))?;
    let ws = driver::Workspace::new(&args.analyzer.cache_dir);
    let mut written = vec![];
    let mut reduced_json = None;
    let mut dumped = false;
    if reduce {
        let ropts = driver::ReduceStageOptions {
            out_dir: args.output.clone(),
            mode: match args.reduce {
                ReduceArg::Strict => driver::ReduceMode::Strict,
                ReduceArg::BestEffort => driver::ReduceMode::BestEffort,
            },
            dump_after: args.dump_after.clone(),
            strip_observability: args.strip_observability,
            ..Default::default()
        };
        let mut progress = |p: driver::ReduceProgress| {
            if fmt == Format::Human {
                eprintln!("{}", crate::render::reduce_progress(&p));
            }
        };
        match driver::reduce_chain(&ws, &chain, &ropts, &mut progress)? {
            driver::ReducedOutcome::Reduced(r) => {
                let nfc::reduce::Reduction {
                    files,
                    summary,
                    dump,
                    diagnostics,
                    ..
                } = *r;
                diags.extend(diagnostics);
                written.extend([
                    files.ll.clone(),
                    files.so.clone(),
                    files.report.clone(),
                    files.chain_file.clone(),
                ]);
                if fmt == Format::Human {
                    eprint!("{}", crate::render::reduce_summary(&summary, &files));
                }
                if let Some(ir) = &dump {
                    dumped = true;
                    if fmt == Format::Human {
                        out(ir)?;
                    }
                }
                reduced_json = Some(serde_json::json!({
                    "fell_back": false,
                    "summary": summary,
                    "files": files,
                    "dump": dump,
                }));
            }
            driver::ReducedOutcome::Unreduced {
                report,
                diagnostics,
            } => {
                diags.extend(diagnostics);
                written.push(report.clone());
                reduced_json = Some(serde_json::json!({ "fell_back": true, "report": report }));
            }
        }
    }
    let needs_plan = args.target.is_some()
        || args.emit.contains(&Stage::Facts)
        || args.emit.contains(&Stage::Plan);
    if needs_plan {
        let forced = args.proof.facts()?;
        let (facts, plan, d, proof) =
            driver::analyze_place_prove(&chain, &opts, &ws, &args.proof.options(), &forced)?;
        diags.extend(d);
        if fmt == Format::Human && args.proof.plan_proof != super::proof::ProofArg::Off {
            eprintln!("{}", proof.line());
        }
        if args.emit.contains(&Stage::Facts) {
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
        match args.target {
            Some(Target::Fastclick) => {
                let text = nfc::emit::fastclick::emit_chain(&chain, &facts, &plan);
                written.push(write(
                    &args.output,
                    &format!("{}.click", chain.name),
                    &text,
                )?);
            }
            Some(Target::Flash) => {
                let (files, notes) = nfc::emit::flash_target(&chain, &facts, &ws, &args.output)?;
                for note in notes {
                    eprintln!("note: {note}");
                }
                written.extend(files);
            }
            Some(Target::Agilio) => {
                let plan = nfc::emit::agilio::plan(&chain, &facts)?;
                let json = serde_json::to_string_pretty(&plan)?;
                written.push(write(&args.output, "agilio-plan.json", &json)?);
                written.push(write(
                    &args.output,
                    "agilio_placement.h",
                    &nfc::emit::agilio::header(&plan),
                )?);
            }
            None => {}
        }
    }
    warnings(&diags, fmt);
    match (fmt, reduced_json) {
        (Format::Json, Some(r)) => {
            out(&format!(
                "{}\n",
                serde_json::json!({ "written": written, "reduced": r })
            ))?;
            Ok(ExitCode::SUCCESS)
        }
        // The IR went to stdout; keep the file list apart from it.
        (Format::Human, _) if dumped => {
            for p in &written {
                eprintln!("wrote {}", p.display());
            }
            Ok(ExitCode::SUCCESS)
        }
        _ => report(&written, fmt),
    }
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
    let text = std::fs::read_to_string(&args.input).map_err(|e| {
        nfc::Failure::diag(Diagnostic::error(
            "E0006",
            format!("cannot read {file}: {e}"),
        ))
    })?;
    let opts = args.analyzer.options()?;
    let (facts_by_element, diags) =
        nfc::emit::fastclick_sources::analyze_click_elements(&text, &file, root, &opts)?;
    let resources = nfc_core::chain::Resources {
        cores: args.cores,
        ..Default::default()
    };
    let (plan, d) = driver::place_nfs(
        &facts_by_element,
        &resources,
        &nfc_placer::TrafficProfile::default(),
        &driver::PlaceOptions::default(),
    )?;
    let rewritten = nfc::emit::fastclick::rewrite_click(&text, &file, &facts_by_element, &plan)
        .map_err(nfc::Failure::Diagnostics)?;
    std::fs::create_dir_all(&args.output)?;
    let mut written = vec![write(
        &args.output,
        args.input
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("config.click"),
        &rewritten,
    )?];
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
    all.extend(diags);
    all.extend(d);
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
