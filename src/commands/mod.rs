//! Command-line interface: one file per subcommand, all clap derive.

mod analyze;
mod build;
mod check;
mod explain;
mod explain_code;
mod insight;
mod monitor;
mod nf_host;
mod predict;
mod profile;
mod proof;
mod run;
mod smartnic;
mod smartnic_coalesce;
mod trace;

use clap::{Parser, Subcommand, ValueEnum};
use std::process::ExitCode;

/// nfc — a compiler for network-function chains.
///
/// nfc reads a chain (chain.yaml, or a FastClick .click file), analyzes each NF's
/// source, reduces redundant logic, places the chain on cores and NICs, and emits a
/// FastClick config, a flash-rt AF_XDP deployment, or an Agilio offload plan.
#[derive(Debug, Parser)]
#[command(name = "nfc", version, propagate_version = true)]
pub struct Cli {
    /// Output format for results and diagnostics.
    #[arg(long, global = true, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    #[command(subcommand)]
    pub command: Command,
}

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Text for people; diagnostics show the offending line and a hint.
    Human,
    /// JSON for tools: results on stdout, diagnostics on stderr (`check`: on stdout, they are its result).
    Json,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Validate chain files and report every problem with its location.
    Check(check::Args),
    /// Analyze NFs: statefulness, flow key, symmetry, write intensity, pointer chasing.
    Analyze(analyze::Args),
    /// Compile a chain for a target (fastclick, flash, agilio).
    Build(build::Args),
    /// Explain what each stage decides for a chain, and why.
    Explain(explain::Args),
    /// Explain a diagnostic code (e.g. `nfc explain-code E0401`).
    ExplainCode(explain_code::Args),
    /// Run a chain over a pcap with the reference executor, or a flash deployment on line.
    Run(run::Args),
    /// Host one NF of a flash deployment (started by `nfc run <deployment>`).
    #[command(hide = true)]
    NfHost(nf_host::Args),
    /// Traffic traces: generate pcaps for tests and benchmarks.
    Trace(trace::Args),
    /// Predict throughput and latency from NF counters (train, eval, explain), and SmartNIC compute (insight).
    Predict(predict::Args),
    /// Sample a running flash chain's NF counters and packet rates (CSV or a live table).
    Monitor(monitor::Args),
    /// Profile a flash deployment under load and resource stimuli into a counter dataset.
    Profile(profile::Args),
    /// SmartNIC (Agilio) models from Clara's measurements: core count, colocation, coalescing.
    Smartnic(smartnic::Args),
    /// SmartNIC insight per NF: predicted compute instructions, memory accesses, accelerator candidates.
    Insight(insight::Args),
}

/// Run a parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let fmt = cli.format;
    match cli.command {
        Command::Check(a) => check::run(a, fmt),
        Command::Analyze(a) => analyze::run(a, fmt),
        Command::Build(a) => build::run(a, fmt),
        Command::Explain(a) => explain::run(a, fmt),
        Command::ExplainCode(a) => explain_code::run(a, fmt),
        Command::Run(a) => run::run(a, fmt),
        Command::NfHost(a) => nf_host::run(a),
        Command::Trace(a) => trace::run(a, fmt),
        Command::Predict(a) => predict::run(a, fmt),
        Command::Monitor(a) => monitor::run(a, fmt),
        Command::Profile(a) => profile::run(a, fmt),
        Command::Smartnic(a) => smartnic::run(a, fmt),
        Command::Insight(a) => insight::run(a, fmt),
    }
}

/// Write to stdout; a closed pipe surfaces as an io::Error the caller maps to exit 0.
pub fn out(text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    let mut o = std::io::stdout().lock();
    o.write_all(text.as_bytes())?;
    o.flush()?;
    Ok(())
}

/// Print warnings that accompany a successful result.
pub fn warnings(diags: &[nfc_core::Diagnostic], fmt: Format) {
    if !diags.is_empty() {
        crate::render::diagnostics(diags, fmt);
    }
}
