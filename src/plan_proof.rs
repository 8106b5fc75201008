//! Plan proof by differential execution. A placement plan is correct only
//! if no flow's state is split across cores, and a wrong fact (a flow key
//! broader than the code's, a "stateless" NF that keeps state, a global
//! allocator) silently makes it wrong. So every plan `nfc build` and `nfc
//! explain` emit is run, with the reference executor, twice over the same
//! traffic: single-worker with every NF on one state instance (the
//! reference), and as planned (the plan's cores, software RSS with its
//! fields, Toeplitz key and RETA, each NF shared or shared-nothing as the
//! plan says). Both runs use the executor's serial schedule (every packet in
//! arrival order, each on its RSS worker's state instances), which makes the
//! planned run deterministic, and its closed loop (every packet leaving the
//! chain comes back as the reply a remote host would send, so NAT and
//! load-balancer replies travel the return path).
//!
//! The traffic is built to expose split state ([`proof_traffic`]): the
//! chain's own traffic, a bidirectional trace with many flows per host, and
//! a port-reuse trace (several hosts behind one source port, the collision a
//! NAT must keep apart).
//!
//! What is compared: for every input packet and every reply, in arrival
//! order, where each copy left the chain (NF and port) and its bytes, or
//! that it was dropped; and the final state digest of every NF the plan
//! keeps shared (one instance in both runs). The state of an NF split into
//! per-worker instances cannot be compared: its digests hash raw instance
//! memory (hash-table layouts, per-instance cursors), which do not merge
//! into one instance's digest, so for those NFs only their outputs count.
//!
//! A mismatch rejects the plan. The NF responsible is found by running the
//! plan again with only one NF split at a time; [`prove_and_repair`] pins it
//! shared and places the chain again, until a plan is proven.

use crate::driver::{self, Workspace};
use crate::Failure;
use flash_rt::offline::{ExecChain, ExecError, ExecOptions, ExecRun, Executor};
use flash_rt::rss::FlowFields;
use flash_rt::trace::craft::{tcp_flags, PacketBuilder};
use flash_rt::trace::Packets;
use nfc_core::chain::{ChainSpec, Traffic, TrafficSpec};
use nfc_core::plan::{Plan, Sharing};
use nfc_core::{Diagnostic, Facts};
use serde::Serialize;
use std::collections::HashMap;
use std::net::Ipv4Addr;
use std::time::Instant;

/// What a failed or impossible proof does to the build.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProofMode {
    /// A rejected plan is repaired (the NF pinned shared, the chain placed
    /// again) until the proof accepts it; a plan that cannot be repaired (an
    /// operator pin) fails the build.
    #[default]
    Strict,
    /// A rejection is a warning; the plan is kept as placed.
    Warn,
    /// No proof.
    Off,
}

/// How to prove plans.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProofOptions {
    pub mode: ProofMode,
    /// Input packets per proof run (closed-loop replies come on top).
    pub budget: usize,
}

/// Default packet budget: enough for every flow of the split-exposing traces
/// to show up several times, small enough for a proof well under a second.
pub const DEFAULT_BUDGET: usize = 20_000;

impl Default for ProofOptions {
    fn default() -> Self {
        ProofOptions {
            mode: ProofMode::Strict,
            budget: DEFAULT_BUDGET,
        }
    }
}

/// The first packet on which the planned run differs from the reference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Mismatch {
    /// The NF whose split causes the difference (`None` when no single split
    /// NF reproduces it).
    pub nf: Option<String>,
    /// The flow of the input packet, e.g. `tcp 10.1.0.3:40000 -> 203.0.113.1:80`.
    pub flow: String,
    /// Position of that packet in its flow (1-based), and in the trace (0-based).
    pub packet_in_flow: u64,
    pub input: u64,
    /// Whether the differing packet is the closed-loop reply to the input.
    pub reply: bool,
    /// What the reference and the planned run did with it.
    pub reference: String,
    pub planned: String,
}

/// The outcome of one proof run.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum Verdict {
    /// Outputs (and shared states) equal.
    Proven,
    /// Nothing to prove, and why (one core, or every NF on one instance).
    Trivial {
        reason: String,
    },
    Rejected(Mismatch),
}

/// One proof: the verdict, what was run and how long it took.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProofReport {
    #[serde(flatten)]
    pub verdict: Verdict,
    /// Input packets and closed-loop replies per run.
    pub packets: u64,
    pub replies: u64,
    pub workers: u32,
    /// NFs the plan splits into per-worker instances.
    pub split: Vec<String>,
    pub millis: u64,
}

/// What proving (and repairing) a chain's plan produced.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProofSummary {
    pub mode: ProofMode,
    /// Every proof run, in order (the last one is the emitted plan's).
    pub runs: Vec<ProofReport>,
    /// NFs pinned shared because the proof rejected their split.
    pub pinned_shared: Vec<String>,
    /// Set when the plan could not be proven at all, with the reason.
    pub unproven: Option<String>,
}

impl ProofSummary {
    /// One line for people.
    pub fn line(&self) -> String {
        if let Some(why) = &self.unproven {
            return format!("plan not proven: {why}");
        }
        let Some(last) = self.runs.last() else {
            return "plan proof off".into();
        };
        let mut s = match &last.verdict {
            Verdict::Trivial { reason } => format!("plan proven trivially: {reason}"),
            v => format!(
                "{}: {} packets + {} closed-loop replies, single worker vs {} workers ({} split: {})",
                if matches!(v, Verdict::Proven) {
                    "plan proven by differential execution"
                } else {
                    "plan REJECTED by differential execution"
                },
                last.packets,
                last.replies,
                last.workers,
                last.split.len(),
                last.split.join(", ")
            ),
        };
        if !self.pinned_shared.is_empty() {
            s.push_str(&format!(
                "; pinned shared after rejection: {}",
                self.pinned_shared.join(", ")
            ));
        }
        s
    }
}

// ------------------------------------------------------------------ traffic

/// The proof's input: `budget` packets interleaved from the chain's traffic
/// (its synthetic spec or the head of its pcap), a bidirectional trace with
/// many flows per host, and a port-reuse trace; re-timestamped 1 µs apart.
pub fn proof_traffic(chain: &ChainSpec, budget: usize) -> Result<Packets, Failure> {
    let budget = budget.max(1);
    let own_n = budget / 2;
    let bidir_n = budget * 3 / 10;
    let reuse_n = budget - own_n - bidir_n;
    let seed = match &chain.traffic {
        Traffic::Synthetic(s) => s.seed,
        Traffic::Pcap { .. } => 1,
    };
    let own = match &chain.traffic {
        Traffic::Synthetic(spec) => {
            let mut spec = spec.clone();
            spec.packets = own_n as u64;
            synthetic(&spec)?
        }
        Traffic::Pcap { path } => {
            let all = flash_rt::trace::pcap::read_pcap(path).map_err(|e| {
                Failure::diag(
                    Diagnostic::error("E0200", format!("{}: {e}", path.display()))
                        .with_hint("the traffic pcap must be a classic libpcap capture"),
                )
            })?;
            let mut head = Packets::with_capacity(own_n, 0);
            for p in all.iter().take(own_n) {
                head.push(p.ts_ns, p.data);
            }
            head
        }
    };
    let bidir = synthetic(&TrafficSpec {
        flows: 600,
        packets: bidir_n as u64,
        zipf: 0.6,
        tcp: 0.6,
        udp: 0.3,
        icmp: 0.1,
        bidirectional: 0.5,
        src_prefix: "10.20.0.0/16".into(),
        dst_prefix: "172.16.0.0/16".into(),
        src_hosts: 12,
        dst_hosts: 6,
        seed: seed.wrapping_add(0x5eed),
        ..TrafficSpec::default()
    })?;
    let reuse = port_reuse(reuse_n);
    Ok(interleave(&[&own, &bidir, &reuse]))
}

fn synthetic(spec: &TrafficSpec) -> Result<Packets, Failure> {
    if spec.packets == 0 {
        return Ok(Packets::new());
    }
    flash_rt::trace::generate_packets(spec)
        .map(|(p, _)| p)
        .map_err(|e| {
            Failure::diag(
                Diagnostic::error("E0040", e.to_string())
                    .with_hint("fix `traffic.synthetic` in the chain file"),
            )
        })
}

/// `n` packets of flows that reuse source ports across hosts: 16 inside
/// hosts each open connections from the same 4 source ports to 4 servers
/// (TCP to port 80, UDP to 53), round-robin over the 256 flows; a TCP flow's
/// first packet is a SYN (64 bytes), the others are 1024-byte frames, so each
/// server receives megabytes within milliseconds from many sources: rate and
/// volume state keyed by the destination runs out, and a wrong split of it
/// shows.
fn port_reuse(n: usize) -> Packets {
    let mut out = Packets::with_capacity(n, n * 64);
    let flows = 16 * 4 * 4;
    for i in 0..n {
        let f = i % flows;
        let (host, port, server) = (f % 16, (f / 16) % 4, f / 64);
        let src = Ipv4Addr::new(10, 99, 0, 1 + host as u8);
        let dst = Ipv4Addr::new(198, 18, 0, 1 + server as u8);
        let sport = 40000 + port as u16;
        let b = if (host + server) % 3 == 2 {
            PacketBuilder::udp(src, dst, sport, 53)
        } else {
            let flags = if i < flows {
                tcp_flags::SYN
            } else {
                tcp_flags::ACK
            };
            PacketBuilder::tcp(src, dst, sport, 80).flags(flags)
        };
        let len = if i < flows { 64 } else { 1024 };
        out.push(0, &b.frame_len(len).build());
    }
    out
}

fn interleave(parts: &[&Packets]) -> Packets {
    let n: usize = parts.iter().map(|p| p.len()).sum();
    let bytes = parts.iter().map(|p| p.total_bytes() as usize).sum();
    let mut out = Packets::with_capacity(n, bytes);
    let longest = parts.iter().map(|p| p.len()).max().unwrap_or(0);
    let mut t = flash_rt::trace::TraceTiming::default().start_ns;
    for i in 0..longest {
        for p in parts.iter().filter_map(|p| p.get(i)) {
            out.push(t, p.data);
            t += 1000;
        }
    }
    out
}

// ------------------------------------------------------------------- proof

/// NFs of `exec` that run one state instance per worker.
fn split_nfs(exec: &ExecChain) -> Vec<usize> {
    (0..exec.nfs.len())
        .filter(|&i| exec.nfs[i].sharing != Sharing::Shared)
        .collect()
}

fn with_sharing(exec: &ExecChain, split: &[usize]) -> ExecChain {
    let mut e = exec.clone();
    for (i, nf) in e.nfs.iter_mut().enumerate() {
        nf.sharing = if split.contains(&i) {
            exec.nfs[i].sharing
        } else {
            Sharing::Shared
        };
    }
    e
}

/// Prove `plan` for an executable chain (`exec` carries the plan's sharing,
/// e.g. from [`driver::exec_chain`]) over `traffic`.
pub fn prove(
    exec: &ExecChain,
    plan: &Plan,
    traffic: &Packets,
    scratch: Option<std::path::PathBuf>,
) -> Result<ProofReport, ExecError> {
    let start = Instant::now();
    let split = split_nfs(exec);
    let names = split.iter().map(|&i| exec.nfs[i].id.clone()).collect();
    let workers = plan.cores.max(1);
    let mut report = ProofReport {
        verdict: Verdict::Proven,
        packets: traffic.len() as u64,
        replies: 0,
        workers,
        split: names,
        millis: 0,
    };
    if workers == 1 || split.is_empty() {
        report.verdict = Verdict::Trivial {
            reason: if workers == 1 {
                "one core".into()
            } else {
                "every NF runs on one shared state instance".into()
            },
        };
        report.millis = start.elapsed().as_millis() as u64;
        return Ok(report);
    }
    let ref_opts = ExecOptions {
        reflect: true,
        scratch_dir: scratch.clone(),
        ..ExecOptions::default()
    };
    let reference = Executor::new(&with_sharing(exec, &[]), &ref_opts)?.run(traffic)?;
    let plan_opts = ExecOptions {
        reflect: true,
        scratch_dir: scratch,
        ..ExecOptions::from_plan(plan)
    };
    let run = |split_only: &[usize]| -> Result<ExecRun, ExecError> {
        Executor::new(&with_sharing(exec, split_only), &plan_opts)?.run(traffic)
    };
    let planned = run(&split)?;
    report.replies = reference.output_tags.iter().filter(|t| t.reply).count() as u64;
    if let Some(mut m) = compare(exec, traffic, &reference, &planned) {
        // Which split reproduces it alone? The first in chain order that does.
        m.nf = None;
        if split.len() == 1 {
            m.nf = Some(exec.nfs[split[0]].id.clone());
        } else {
            for &j in &split {
                if compare(exec, traffic, &reference, &run(&[j])?).is_some() {
                    m.nf = Some(exec.nfs[j].id.clone());
                    break;
                }
            }
        }
        report.verdict = Verdict::Rejected(m);
    }
    report.millis = start.elapsed().as_millis() as u64;
    Ok(report)
}

/// One exit of one packet: (reply, exit NF, port, bytes).
type Exit<'a> = (bool, u32, u32, &'a [u8]);

fn exits_by_input(run: &ExecRun, n: usize) -> Vec<Vec<Exit<'_>>> {
    let mut by = vec![Vec::new(); n];
    if let Some(out) = &run.output {
        for (k, t) in run.output_tags.iter().enumerate() {
            if let (Some(slot), Some(p)) = (by.get_mut(t.input as usize), out.get(k)) {
                slot.push((t.reply, t.nf, t.port, p.data));
            }
        }
    }
    by
}

/// The first difference between the reference and the planned run, if any.
fn compare(
    exec: &ExecChain,
    traffic: &Packets,
    reference: &ExecRun,
    planned: &ExecRun,
) -> Option<Mismatch> {
    let n = traffic.len();
    let a = exits_by_input(reference, n);
    let b = exits_by_input(planned, n);
    let mut per_flow: HashMap<String, u64> = HashMap::new();
    for i in 0..n {
        let input = traffic.get(i)?.data;
        let flow = flow_name(input);
        let seq = {
            let c = per_flow.entry(flow.clone()).or_default();
            *c += 1;
            *c
        };
        if a[i] == b[i] {
            continue;
        }
        // The first differing exit (forward copies come before replies).
        let k = (0..a[i].len().max(b[i].len()))
            .find(|&k| a[i].get(k) != b[i].get(k))
            .unwrap_or(0);
        let reply = a[i].get(k).or(b[i].get(k)).is_some_and(|e| e.0);
        let other = b[i].get(k).map(|e| e.3);
        return Some(Mismatch {
            nf: None,
            flow,
            packet_in_flow: seq,
            input: i as u64,
            reply,
            reference: describe(exec, a[i].get(k), reply, other),
            planned: describe(exec, b[i].get(k), reply, a[i].get(k).map(|e| e.3)),
        });
    }
    // Outputs agree; an NF shared in the plan has one instance in both runs,
    // so its final state must agree too.
    for (r, p) in reference.report.nfs.iter().zip(&planned.report.nfs) {
        if p.sharing == Sharing::Shared && r.state_digest != p.state_digest {
            return Some(Mismatch {
                nf: None,
                flow: "(none: every packet left alike)".into(),
                packet_in_flow: 0,
                input: n as u64,
                reply: false,
                reference: format!(
                    "final state of shared NF `{}` {}",
                    r.id,
                    short(&r.state_digest)
                ),
                planned: format!(
                    "final state of shared NF `{}` {}",
                    p.id,
                    short(&p.state_digest)
                ),
            });
        }
    }
    None
}

fn short(d: &str) -> &str {
    &d[..12.min(d.len())]
}

/// "left `nat.0` as tcp 198.51.100.1:1024 -> 203.0.113.1:80 (64 bytes)", or
/// "dropped"; when both runs emitted a frame with the same headers, the first
/// differing byte offset.
fn describe(exec: &ExecChain, e: Option<&Exit<'_>>, reply: bool, other: Option<&[u8]>) -> String {
    let what = if reply { "the reply" } else { "the packet" };
    match e {
        None => format!("{what} was dropped"),
        Some(&(_, nf, port, bytes)) => {
            let id = exec.nfs.get(nf as usize).map_or("?", |n| n.id.as_str());
            let mut s = format!(
                "{what} left `{id}.{port}` as {} ({} bytes)",
                flow_name(bytes),
                bytes.len()
            );
            if let Some(o) = other {
                if flow_name(o) == flow_name(bytes) {
                    if let Some(off) = bytes.iter().zip(o).position(|(x, y)| x != y) {
                        s.push_str(&format!(", first differing byte at offset {off}"));
                    }
                }
            }
            s
        }
    }
}

/// A frame's flow for people: `tcp 10.0.0.1:1000 -> 192.168.0.1:80`.
pub fn flow_name(frame: &[u8]) -> String {
    let f = FlowFields::parse(frame);
    let ip = |b: [u8; 4]| Ipv4Addr::from(b);
    let port = |b: [u8; 2]| u16::from_be_bytes(b);
    match f.proto {
        6 | 17 => format!(
            "{} {}:{} -> {}:{}",
            if f.proto == 6 { "tcp" } else { "udp" },
            ip(f.src_ip),
            port(f.src_port),
            ip(f.dst_ip),
            port(f.dst_port)
        ),
        0 if f.src_ip == [0; 4] => "non-IPv4".into(),
        p => format!("proto {p} {} -> {}", ip(f.src_ip), ip(f.dst_ip)),
    }
}

// ------------------------------------------------------------ prove + repair

/// Prove `plan` for `chain` and, in strict mode, repair it: each rejected
/// split NF is pinned shared and the chain placed again (with `facts` and
/// `traffic_profile`), until the proof accepts. Returns the emitted plan,
/// diagnostics (P201 per rejection, P202 when a rejected NF is pinned
/// shared-nothing by the operator, P203 when the chain cannot run in the
/// reference executor) and the proof summary.
pub fn prove_and_repair(
    chain: &ChainSpec,
    facts: &[Facts],
    mut plan: Plan,
    ws: &Workspace,
    opts: &ProofOptions,
) -> Result<(Plan, Vec<Diagnostic>, ProofSummary), Failure> {
    let mut summary = ProofSummary {
        mode: opts.mode,
        runs: vec![],
        pinned_shared: vec![],
        unproven: None,
    };
    let mut diags = vec![];
    if opts.mode == ProofMode::Off {
        return Ok((plan, diags, summary));
    }
    // A plan where every NF shares one instance (or one core) is the
    // reference itself: no need to build or run anything.
    let trivially =
        |plan: &Plan| plan.cores <= 1 || plan.nfs.iter().all(|n| n.sharing == Sharing::Shared);
    if trivially(&plan) {
        let empty = ExecChain {
            nfs: vec![],
            entries: vec![],
        };
        let traffic = Packets::new();
        summary.runs.push(
            prove(&empty, &plan, &traffic, None).map_err(|e| driver::exec_failure(e, chain))?,
        );
        return Ok((plan, diags, summary));
    }
    let objects = match driver::build_objects(chain, ws) {
        Ok(o) => o,
        Err(Failure::Diagnostics(d)) => {
            let why = d
                .first()
                .map(|d| d.message.clone())
                .unwrap_or_else(|| "its NFs do not build".into());
            summary.unproven = Some(format!(
                "the reference executor cannot run the chain ({why})"
            ));
            diags.push(
                Diagnostic::warning(
                    "P203",
                    format!("plan not proven: the reference executor cannot run this chain: {why}"),
                )
                .with_hint("its shared-nothing placements rest on the analyzer's facts alone; only NFs written against nfs/include/nf.h can be proven"),
            );
            return Ok((plan, diags, summary));
        }
        Err(e) => return Err(e),
    };
    let traffic = proof_traffic(chain, opts.budget)?;
    let scratch = ws.dir.join("scratch");
    std::fs::create_dir_all(&scratch)
        .map_err(|e| Failure::io("creating the scratch directory", e))?;
    let place_traffic = driver::traffic_profile(chain)?;
    let mut pins: Vec<(String, Sharing)> = vec![];
    for _ in 0..=chain.nfs.len() {
        let exec = driver::exec_chain(chain, &objects, Some(&plan));
        let report = prove(&exec, &plan, &traffic, Some(scratch.clone()))
            .map_err(|e| driver::exec_failure(e, chain))?;
        let verdict = report.verdict.clone();
        summary.runs.push(report);
        let Verdict::Rejected(m) = verdict else {
            return Ok((plan, diags, summary));
        };
        let culprit =
            m.nf.clone()
                .or_else(|| summary.runs.last().and_then(|r| r.split.first().cloned()));
        let Some(nf) = culprit else {
            break;
        };
        let inst = chain.nf(&nf);
        let pinned_sn = inst.and_then(|i| i.sharing) == Some(Sharing::SharedNothing);
        let strict = opts.mode == ProofMode::Strict;
        let mut d = if strict && pinned_sn {
            Diagnostic::error("P202", rejection_message(&nf, &m, &plan))
                .with_hint("the operator pinned this NF `sharing: shared-nothing`, but its state is split by this RSS hash: unpin it or pin it `shared`")
        } else if strict {
            Diagnostic::warning("P201", rejection_message(&nf, &m, &plan)).with_hint(format!(
                "`{nf}` is kept shared; if its facts are wrong (a flow key broader than the code's, state no packet field keys), fix them, or pin `sharing: shared` to skip the split"
            ))
        } else {
            Diagnostic::warning("P201", rejection_message(&nf, &m, &plan))
                .with_hint("--plan-proof=warn keeps the unproven plan; the default (strict) pins the NF shared")
        };
        d = d
            .with_span_opt(inst.and_then(|i| i.span.clone()))
            .with_note(format!("reference (single worker): {}", m.reference))
            .with_note(format!(
                "as planned ({} workers): {}",
                plan.cores, m.planned
            ));
        let stop = !strict || pinned_sn;
        diags.push(d);
        if stop {
            return Ok((plan, diags, summary));
        }
        pins.retain(|(id, _)| *id != nf);
        pins.push((nf.clone(), Sharing::Shared));
        summary.pinned_shared.push(nf);
        let popts = driver::PlaceOptions {
            pins: pins.clone(),
            ..driver::PlaceOptions::default()
        };
        let (mut p, d) = driver::place_chain(chain, facts, &place_traffic, &popts)?;
        diags.extend(d.into_iter().filter(|d| !d.is_error()));
        for placed in &mut p.nfs {
            if summary.pinned_shared.contains(&placed.nf) {
                placed.reason =
                    "pinned shared by the plan proof (P201): splitting it changed packets".into();
            }
        }
        plan = p;
    }
    Err(Failure::diag(
        Diagnostic::error(
            "P202",
            "the plan proof still rejects the plan with every split NF pinned shared",
        )
        .with_hint("an NF's output depends on more than its state (e.g. the worker index); run with --plan-proof=warn and report the chain"),
    ))
}

fn rejection_message(nf: &str, m: &Mismatch, plan: &Plan) -> String {
    let fields: Vec<&str> = plan.rss.fields.iter().map(|f| f.name()).collect();
    let what = if m.reply { "reply to packet" } else { "packet" };
    if m.packet_in_flow == 0 {
        return format!(
            "plan rejected: splitting `{nf}` over {} workers (RSS on {}) changes {}",
            plan.cores,
            fields.join(", "),
            m.planned
        );
    }
    format!(
        "plan rejected: splitting `{nf}` over {} workers (RSS on {}) changes the {what} #{} of flow {} (input packet {})",
        plan.cores,
        fields.join(", "),
        m.packet_in_flow,
        m.flow,
        m.input
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn port_reuse_shares_source_ports_across_hosts() {
        let p = port_reuse(512);
        let mut by_port: HashMap<[u8; 2], std::collections::HashSet<[u8; 4]>> = HashMap::new();
        for f in p.iter().map(|p| FlowFields::parse(p.data)) {
            by_port.entry(f.src_port).or_default().insert(f.src_ip);
        }
        assert_eq!(by_port.len(), 4);
        assert!(by_port.values().all(|hosts| hosts.len() == 16));
    }

    #[test]
    fn flow_names() {
        let f = PacketBuilder::udp(
            Ipv4Addr::new(10, 0, 0, 1),
            Ipv4Addr::new(10, 0, 0, 2),
            5,
            53,
        )
        .build();
        assert_eq!(flow_name(&f), "udp 10.0.0.1:5 -> 10.0.0.2:53");
        assert_eq!(flow_name(&[0u8; 20]), "non-IPv4");
    }
}
