//! `nfc build`: compile a chain (chain.yaml) or rewrite a FastClick
//! configuration (.click) for a target, writing the stages' outputs on request.

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
    /// What to emit: a FastClick config, a flash-rt AF_XDP deployment, or an Agilio SmartNIC offload plan.
    #[arg(long, value_enum)]
    pub target: Target,
    /// Output directory (created if missing).
    #[arg(short, long, default_value = "nfc-out")]
    pub output: PathBuf,
    /// Also write these stages' outputs as JSON into the output directory
    /// (comma-separated: facts, reduced, plan, prediction).
    #[arg(long, value_delimiter = ',', value_enum)]
    pub emit: Vec<Stage>,
    /// For a .click input: where the FastClick element sources live (searched for the element classes).
    #[arg(long)]
    pub source_root: Option<PathBuf>,
    /// Cores to plan for when the input is a .click file (chain files say it in `resources`).
    #[arg(long, default_value_t = 2)]
    pub cores: u32,
    #[command(flatten)]
    pub analyzer: AnalyzerArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Target {
    /// A FastClick .click configuration with RSS and per-element sharing.
    Fastclick,
    /// A flash-rt deployment (AF_XDP monitor + unprivileged NFs) and Kubernetes manifests.
    Flash,
    /// A Netronome Agilio offload plan (not available yet).
    Agilio,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Stage {
    /// The analyzer's facts per NF.
    Facts,
    /// The reducer's report and artefacts (not available yet).
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
    for s in &args.emit {
        match s {
            Stage::Reduced => {
                return Err(nfc::Failure::diag(
                    Diagnostic::error("E0900", "the reduce stage is not available in `nfc build` yet")
                        .with_hint("the NFReducer passes exist as a library (crates/reducer, see its reduce_one example) but are not wired into the driver"),
                )
                .into())
            }
            Stage::Prediction => return Err(nfc::Failure::not_available("predict").into()),
            _ => {}
        }
    }
    if args.target == Target::Agilio {
        return Err(nfc::Failure::not_available("agilio target").into());
    }
    if args.input.extension().is_some_and(|e| e == "click") {
        return build_click(&args, fmt);
    }
    let (chain, mut diags) = driver::load_chain(&args.input)?;
    let opts = args.analyzer.options()?;
    std::fs::create_dir_all(&args.output)
        .with_context(|| format!("creating {}", args.output.display()))?;
    let (facts, d) = driver::analyze_chain(&chain, &opts)?;
    diags.extend(d);
    let traffic = driver::traffic_profile(&chain)?;
    let (plan, d) =
        driver::place_chain(&chain, &facts, &traffic, &driver::PlaceOptions::default())?;
    diags.extend(d);
    let mut written = vec![];
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
        Target::Fastclick => {
            let text = nfc::emit::fastclick::emit_chain(&chain, &facts, &plan);
            written.push(write(
                &args.output,
                &format!("{}.click", chain.name),
                &text,
            )?);
        }
        Target::Flash => {
            let ws = driver::Workspace::new(&args.analyzer.cache_dir);
            written.extend(nfc::emit::flash_target(&chain, &ws, &args.output)?);
        }
        Target::Agilio => unreachable!("handled above"),
    }
    warnings(&diags, fmt);
    report(&written, fmt)
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
    if args.target != Target::Fastclick {
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
    let mut all = diags;
    all.extend(d);
    warnings(&all, fmt);
    report(&written, fmt)
}
