//! `nfc explain`: what each stage of the pipeline decides for a chain, and
//! why. It runs the same [`nfc::pipeline::Pipeline`] as `nfc build`, so the
//! reduction, facts and plan it prints are the ones a build deploys.

use super::analyze::AnalyzerArgs;
use super::{out, warnings, Format};
use nfc::pipeline::{Pipeline, PipelineOptions, ReducePolicy, ReduceRecord, Stage};
use nfc::reduce::ReduceMode;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The chain file.
    pub chain: PathBuf,
    /// Explain the chain as built with `nfc build --no-reduce`.
    #[arg(long)]
    pub no_reduce: bool,
    /// Where the reduced modules are written (default: `explain/` in the cache directory).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Also show the SmartNIC (`--target agilio`) decisions: cores, memory
    /// level per state object with the reason, accelerators, coalescing, colocation.
    #[arg(long)]
    pub smartnic: bool,
    #[command(flatten)]
    pub analyzer: AnalyzerArgs,
    #[command(flatten)]
    pub proof: super::proof::ProofArgs,
    /// Also run the predict stage (the chain under callgrind, then the flash cost model).
    #[arg(long)]
    pub predict: bool,
    /// The flash cost model for `--predict` (default: the one nfc ships).
    #[arg(long, value_name = "MODEL_JSON")]
    pub cost_model: Option<PathBuf>,
}

pub fn run(args: Args, fmt: Format) -> anyhow::Result<ExitCode> {
    let mut p = Pipeline::new(PipelineOptions {
        analyze: args.analyzer.options()?,
        reduce: if args.no_reduce {
            ReducePolicy::Off
        } else {
            ReducePolicy::On(ReduceMode::Auto)
        },
        proof: args.proof.options(),
        facts_override: args.proof.facts()?,
        predict_exe: args.predict.then(std::env::current_exe).transpose()?,
        cost_model: args.cost_model.clone(),
        ..PipelineOptions::new(
            &args.analyzer.cache_dir,
            args.output
                .clone()
                .unwrap_or_else(|| args.analyzer.cache_dir.join("explain")),
        )
    });
    p.load(&args.chain)?;
    p.place()?;
    let chain = p.chain()?.clone();
    let facts = p.analyze()?.to_vec();
    let deployed = p.deployed_chain()?.clone();
    let deployed_facts = p.deployed_facts()?.to_vec();
    let placement = p.place()?.clone();
    let smartnic = if args.smartnic {
        Some(p.agilio_plan()?)
    } else {
        None
    };
    warnings(p.diagnostics(), fmt);
    let record = p.reduction().cloned().unwrap_or(ReduceRecord::Off);
    // The predict section: the stage's answer, or why it has none.
    let prediction = if args.predict {
        Some(p.predict()?)
    } else {
        None
    };
    match fmt {
        Format::Json => out(&format!(
            "{}\n",
            serde_json::to_string_pretty(&serde_json::json!({
                "chain": p.dump(Stage::Load),
                "facts": facts,
                "reduce": p.dump(Stage::Reduce),
                "deployed_facts": deployed_facts,
                "plan": placement.plan,
                "proof": placement.proof,
                "predict": prediction.as_ref().map_or(serde_json::json!("not run (--predict runs it)"), |p| serde_json::json!(p)),
                "smartnic": smartnic,
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
            t.push_str("\n== reduce: linear segments consolidated into one module each\n");
            t.push_str(&reduce_human(&record));
            if deployed.nfs.len() != chain.nfs.len() {
                t.push_str(
                    "facts of the deployed chain (a reduced NF's derived from its members'):\n",
                );
                t.push_str(&super::analyze::human(&deployed_facts, false));
            }
            t.push_str("\n== place: RSS and state sharing\n");
            t.push_str(&nfc::driver::explain_plan(&placement.plan));
            t.push_str("\n== prove: the plan against the single-worker run\n");
            t.push_str(&format!("{}\n", placement.proof.line()));
            match &prediction {
                Some(pr) => {
                    t.push_str("\n== predict: flash-rt throughput from per-NF callgrind costs\n");
                    t.push_str(&format!("{}\n", super::build::prediction_line(pr)));
                    for (nf, f) in &pr.features {
                        let v: Vec<String> = f.iter().map(|(k, v)| format!("{k} {v:.1}")).collect();
                        t.push_str(&format!("  {nf}: {} per packet\n", v.join(", ")));
                    }
                    match &pr.cap {
                        Some(c) => {
                            let d: Vec<String> =
                                c.drops.iter().map(|(nf, n)| format!("{nf} {n}")).collect();
                            t.push_str(&format!(
                                "cap: {:.3} Mpps delivered of {:.3} Mpps offered (pass fraction {:.4}{}; {}), dropping most as the rate grows: {}; drops in the window: {}\n  source: {}\n",
                                c.delivered_mpps,
                                c.offered_mpps,
                                c.pass_fraction,
                                c.pass_fraction_low
                                    .map_or(String::new(), |l| format!(", {l:.4} at a tenth of the rate")),
                                if c.rate_limited { "a rate limit" } else { "drops that do not depend on the rate" },
                                c.bottleneck.as_deref().unwrap_or("?"),
                                d.join(", "),
                                c.source
                            ));
                        }
                        None => t.push_str("cap: none (every packet left the chain when offered its capacity)\n"),
                    }
                }
                None => t.push_str("\n== predict: not run (`--predict` measures each NF under callgrind and applies the flash cost model)\n"),
            }
            if let Some(plan) = &smartnic {
                t.push_str("\n== smartnic: the agilio target's decisions\n");
                t.push_str(&nfc::emit::agilio::human(plan));
            }
            out(&t)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn reduce_human(record: &ReduceRecord) -> String {
    let mut t = String::new();
    match record {
        ReduceRecord::Off => {
            t.push_str("off (--no-reduce): the original NFs are placed and deployed\n")
        }
        ReduceRecord::Unreduced { reasons, .. } => {
            t.push_str("nothing reduced: the original NFs are placed and deployed\n");
            for r in reasons {
                t.push_str(&format!("  {}: {}\n", r.code, r.message));
            }
            if reasons.is_empty() {
                t.push_str("  no linear segment of two or more NFs\n");
            }
        }
        ReduceRecord::Reduced(r) => {
            for s in &r.segments {
                t.push_str(&format!(
                    "{}: {} reduced into one module, {} → {} instructions, differential check {} packets equal\n",
                    s.id,
                    s.summary.nfs.join(" → "),
                    s.summary.instructions_before,
                    s.summary.instructions_after,
                    s.summary.verification.as_ref().map_or(0, |v| v.packets),
                ));
            }
            t.push_str(&format!(
                "{}\n",
                crate::render::chain_check(&r.check, r.segments.len())
            ));
            for d in &r.not_reduced {
                t.push_str(&format!("  not joined: {}\n", d.message));
            }
        }
    }
    t
}
