//! `nfc explain`: what each stage decides for a chain, and why.

use super::analyze::AnalyzerArgs;
use super::{out, warnings, Format};
use nfc::driver;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The chain file.
    pub chain: PathBuf,
    #[command(flatten)]
    pub analyzer: AnalyzerArgs,
    #[command(flatten)]
    pub proof: super::proof::ProofArgs,
}

pub fn run(args: Args, fmt: Format) -> anyhow::Result<ExitCode> {
    let (chain, mut diags) = driver::load_chain(&args.chain)?;
    let opts = args.analyzer.options()?;
    let ws = driver::Workspace::new(&args.analyzer.cache_dir);
    let forced = args.proof.facts()?;
    let (facts, plan, d, proof) =
        driver::analyze_place_prove(&chain, &opts, &ws, &args.proof.options(), &forced)?;
    diags.extend(d);
    warnings(&diags, fmt);
    match fmt {
        Format::Json => out(&format!(
            "{}\n",
            serde_json::to_string_pretty(&serde_json::json!({
                "chain": chain.dump(),
                "facts": facts,
                "reduce": "not available in explain yet: run `nfc build --emit reduced`",
                "plan": plan,
                "proof": proof,
                "predict": "not available yet",
            }))?
        ))?,
        Format::Human => {
            let mut t = format!(
                "chain `{}`: {} NFs, {} links\n\n",
                chain.name,
                chain.nfs.len(),
                chain.graph.edge_count()
            );
            t.push_str("== analyze: what each NF does with state\n");
            t.push_str(&super::analyze::human(&facts, true));
            t.push_str("\n== place: RSS and state sharing\n");
            t.push_str(&driver::explain_plan(&plan));
            t.push_str("\n== prove: the plan against the single-worker run\n");
            t.push_str(&format!("{}\n", proof.line()));
            t.push_str("\n== predict: not available yet\n");
            out(&t)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
