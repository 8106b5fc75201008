//! `nfc trace gen`: write synthetic pcaps (flows with Zipf popularity, a
//! protocol and size mix, address pools, both directions).

use super::{out, Format};
use anyhow::Context;
use nfc_core::chain::{SizeMix, TrafficSpec};
use nfc_core::Diagnostic;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: TraceCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum TraceCommand {
    /// Generate a pcap from a traffic description (flags, or a chain's `traffic.synthetic`).
    Gen(GenArgs),
}

#[derive(Debug, clap::Args)]
pub struct GenArgs {
    /// Output pcap file.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Take the traffic description from this chain file's `traffic.synthetic` (flags override it).
    #[arg(long)]
    pub chain: Option<PathBuf>,
    /// Distinct flows (5-tuples).
    #[arg(long)]
    pub flows: Option<u32>,
    /// Packets to write.
    #[arg(long)]
    pub packets: Option<u64>,
    /// Zipf exponent of flow popularity (0 = uniform).
    #[arg(long)]
    pub zipf: Option<f64>,
    /// Share of TCP flows (0..1).
    #[arg(long)]
    pub tcp: Option<f64>,
    /// Share of UDP flows (0..1).
    #[arg(long)]
    pub udp: Option<f64>,
    /// Share of ICMP flows (0..1).
    #[arg(long)]
    pub icmp: Option<f64>,
    /// Frame sizes: a byte count (64), `imix`, or weighted `64:7,594:4,1518:1`.
    #[arg(long)]
    pub sizes: Option<String>,
    /// Share of flows that also send packets in the reverse direction (0..1).
    #[arg(long)]
    pub bidirectional: Option<f64>,
    /// Source address pool (IPv4 prefix).
    #[arg(long)]
    pub src_prefix: Option<String>,
    /// Destination address pool (IPv4 prefix).
    #[arg(long)]
    pub dst_prefix: Option<String>,
    /// Distinct source hosts (0 = one per flow).
    #[arg(long)]
    pub src_hosts: Option<u32>,
    /// Distinct destination hosts (0 = one per flow).
    #[arg(long)]
    pub dst_hosts: Option<u32>,
    /// Random seed (the same seed gives the same pcap).
    #[arg(long)]
    pub seed: Option<u64>,
}

fn bad(msg: impl Into<String>, hint: &str) -> anyhow::Error {
    nfc::Failure::diag(Diagnostic::error("E0040", msg).with_hint(hint)).into()
}

fn parse_sizes(s: &str) -> anyhow::Result<SizeMix> {
    if s == "imix" {
        return Ok(SizeMix::Imix);
    }
    if let Ok(n) = s.parse::<u32>() {
        return Ok(SizeMix::Fixed(n));
    }
    let mut w = vec![];
    for part in s.split(',') {
        let (b, wt) = part.split_once(':').ok_or_else(|| {
            bad(
                format!("bad size entry `{part}`"),
                "write sizes as 64, imix, or 64:7,594:4,1518:1",
            )
        })?;
        let b = b.trim().parse::<u32>().map_err(|_| {
            bad(
                format!("bad frame size `{b}`"),
                "frame sizes are whole bytes",
            )
        })?;
        let wt = wt
            .trim()
            .parse::<u32>()
            .map_err(|_| bad(format!("bad weight `{wt}`"), "weights are whole numbers"))?;
        w.push((b, wt));
    }
    Ok(SizeMix::Weighted(w))
}

pub fn run(args: Args, fmt: Format) -> anyhow::Result<ExitCode> {
    let TraceCommand::Gen(a) = args.command;
    let mut spec = match &a.chain {
        Some(path) => {
            let (chain, _) = nfc::driver::load_chain(path)?;
            match chain.traffic {
                nfc_core::chain::Traffic::Synthetic(s) => s,
                nfc_core::chain::Traffic::Pcap { .. } => {
                    return Err(bad(
                        format!("{} uses a pcap, not synthetic traffic", path.display()),
                        "drop --chain and give the flags",
                    ))
                }
            }
        }
        None => TrafficSpec::default(),
    };
    if let Some(v) = a.flows {
        spec.flows = v
    }
    if let Some(v) = a.packets {
        spec.packets = v
    }
    if let Some(v) = a.zipf {
        spec.zipf = v
    }
    // Protocol shares: given ones replace the defaults; unspecified ones are 0.
    if a.tcp.is_some() || a.udp.is_some() || a.icmp.is_some() {
        spec.tcp = a.tcp.unwrap_or(0.0);
        spec.udp = a.udp.unwrap_or(0.0);
        spec.icmp = a.icmp.unwrap_or(0.0);
    }
    if let Some(s) = &a.sizes {
        spec.sizes = parse_sizes(s)?
    }
    if let Some(v) = a.bidirectional {
        spec.bidirectional = v
    }
    if let Some(v) = &a.src_prefix {
        spec.src_prefix = v.clone()
    }
    if let Some(v) = &a.dst_prefix {
        spec.dst_prefix = v.clone()
    }
    if let Some(v) = a.src_hosts {
        spec.src_hosts = v
    }
    if let Some(v) = a.dst_hosts {
        spec.dst_hosts = v
    }
    if let Some(v) = a.seed {
        spec.seed = v
    }
    if let Err(e) = flash_rt::trace::validate(&spec) {
        return Err(bad(e.to_string(), "see `nfc trace gen --help`"));
    }
    let summary = flash_rt::trace::generate(&spec, &a.output)
        .with_context(|| format!("writing {}", a.output.display()))?;
    match fmt {
        Format::Json => out(&format!("{}\n", serde_json::to_string_pretty(&summary)?))?,
        Format::Human => out(&format!(
            "wrote {}: {} packets ({} bytes), {} active flows of {}; tcp {} / udp {} / icmp {}; {} reverse\n",
            a.output.display(),
            summary.packets,
            summary.bytes,
            summary.active_flows,
            summary.flows,
            summary.tcp_packets,
            summary.udp_packets,
            summary.icmp_packets,
            summary.reverse_packets
        ))?,
    }
    Ok(ExitCode::SUCCESS)
}
