//! `nfc run`: run a chain over a pcap with the reference executor (offline),
//! writing the packets that leave the chain, per-NF counters and state digests.

use super::{out, Format};
use nfc::driver::{self, Workspace};
use nfc_core::chain::Traffic;
use nfc_core::Diagnostic;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The chain file.
    pub chain: PathBuf,
    /// Input pcap (default: the chain's `traffic.pcap`).
    #[arg(long)]
    pub pcap: Option<PathBuf>,
    /// Write the packets that leave the chain here.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Worker threads with software RSS (default 1).
    #[arg(long)]
    pub workers: Option<u32>,
    /// Directory for caches and build outputs.
    #[arg(long, default_value = ".nfc")]
    pub cache_dir: PathBuf,
}

pub fn run(args: Args, fmt: Format) -> anyhow::Result<ExitCode> {
    let (chain, _warnings) = driver::load_chain(&args.chain)?;
    let input = match (&args.pcap, &chain.traffic) {
        (Some(p), _) => p.clone(),
        (None, Traffic::Pcap { path }) => path.clone(),
        (None, Traffic::Synthetic(_)) => {
            return Err(nfc::Failure::diag(
                Diagnostic::error("E0202", "no input pcap: the chain's traffic is synthetic")
                    .with_hint(format!(
                "generate one: nfc trace gen --chain {} -o trace.pcap, then pass --pcap trace.pcap",
                args.chain.display()
            )),
            )
            .into())
        }
    };
    if !input.is_file() {
        return Err(nfc::Failure::diag(Diagnostic::error(
            "E0200",
            format!("pcap {} does not exist", input.display()),
        ))
        .into());
    }
    let ws = Workspace::new(&args.cache_dir);
    let report = driver::run_pcap(&chain, &ws, &input, args.out.as_deref(), None, args.workers)?;
    match fmt {
        Format::Json => out(&format!("{}\n", serde_json::to_string_pretty(&report)?))?,
        Format::Human => {
            let mut t = format!(
                "{} packets in, {} out, {} dropped ({} worker{})\n",
                report.packets,
                report.exited,
                report.dropped,
                report.workers,
                if report.workers == 1 { "" } else { "s" }
            );
            for nf in &report.nfs {
                t.push_str(&format!(
                    "  {:<16} rx {:>9}  drop {:>9}  out {:?}  state {}\n",
                    nf.id,
                    nf.rx,
                    nf.drops,
                    nf.out,
                    &nf.state_digest[..16.min(nf.state_digest.len())]
                ));
            }
            for (exit, n) in &report.exits {
                t.push_str(&format!("  exit {exit}: {n}\n"));
            }
            if let Some(o) = &args.out {
                t.push_str(&format!("wrote {}\n", o.display()));
            }
            out(&t)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
