//! Measured inputs of the agilio plan: every NF of the chain run, instrumented,
//! over the head of the chain's traffic ([`nfc_reducer::access_profile`]),
//! NFs in topological order, each seeing the packets its predecessors
//! forwarded. From the profiles: the state items of the SmartNIC placement
//! ILP with measured access frequencies, and the coalescing input.

use crate::driver::{build_objects, Workspace};
use crate::Failure;
use nfc_core::chain::{ChainSpec, Traffic};
use nfc_core::Diagnostic;
use nfc_placer::smartnic::{FrequencySource, StateItem};
use nfc_reducer::access_profile::{self, AccessProfile, ObjectKind, ProfileOptions};
use nfc_reducer::packets::TestPacket;
use std::collections::BTreeMap;

/// Packets of the chain's traffic the profile runs (its head).
pub const PROFILE_PACKETS: usize = 20_000;

/// Profiles of a chain's NFs.
#[derive(Debug, Clone, Default)]
pub struct ChainProfile {
    /// Packets offered to the chain.
    pub packets: usize,
    /// Where they came from.
    pub source: String,
    /// Per NF id: its profile, or why there is none.
    pub nfs: BTreeMap<String, Result<AccessProfile, String>>,
}

impl ChainProfile {
    pub fn of(&self, nf: &str) -> Option<&AccessProfile> {
        self.nfs.get(nf).and_then(|r| r.as_ref().ok())
    }
}

/// The head (`budget` packets) of the chain's traffic.
pub fn chain_packets(
    chain: &ChainSpec,
    budget: usize,
) -> Result<(Vec<TestPacket>, String), Failure> {
    let (pk, source) = match &chain.traffic {
        Traffic::Synthetic(spec) => {
            let mut spec = spec.clone();
            spec.packets = spec.packets.min(budget as u64);
            let (p, _) = flash_rt::trace::generate_packets(&spec).map_err(|e| {
                Failure::diag(
                    Diagnostic::error("E0040", e.to_string())
                        .with_hint("fix `traffic.synthetic` in the chain file"),
                )
            })?;
            (
                p,
                format!(
                    "the first {} packets of traffic.synthetic (seed {})",
                    spec.packets, spec.seed
                ),
            )
        }
        Traffic::Pcap { path } => {
            let p = flash_rt::trace::pcap::read_pcap(path).map_err(|e| {
                Failure::diag(
                    Diagnostic::error("E0200", format!("{}: {e}", path.display()))
                        .with_hint("the traffic pcap must be a classic libpcap capture"),
                )
            })?;
            (p, format!("the first packets of {}", path.display()))
        }
    };
    let out = pk
        .iter()
        .take(budget)
        .map(|p| TestPacket {
            frame: p.data.to_vec(),
            now_ns: p.ts_ns,
        })
        .collect();
    Ok((out, source))
}

/// Build and profile every NF of the chain. An NF that cannot be profiled
/// (not nf.h C code, a build or load failure) keeps the reason and gets a
/// warning; the plan then uses the proxy for it.
pub fn measure(
    chain: &ChainSpec,
    ws: &Workspace,
    budget: usize,
) -> Result<(ChainProfile, Vec<Diagnostic>), Failure> {
    let (packets, source) = chain_packets(chain, budget)?;
    let mut diags = vec![];
    let objects = match build_objects(chain, ws) {
        Ok(o) => o,
        Err(Failure::Diagnostics(d)) => {
            for x in d {
                diags.push(warn(format!("no access profile: {}", x.message)));
            }
            vec![]
        }
        Err(e) => return Err(e),
    };
    let work = ws.build_dir();
    std::fs::create_dir_all(&work)
        .map_err(|e| Failure::io(format!("creating {}", work.display()), e))?;
    let opts = ProfileOptions {
        clang: std::path::PathBuf::from("clang-19"),
        work_dir: work,
    };
    let mut out = ChainProfile {
        packets: packets.len(),
        source,
        nfs: BTreeMap::new(),
    };
    let mut forwarded: BTreeMap<usize, Vec<TestPacket>> = BTreeMap::new();
    for inst in chain.topo_order() {
        let idx = chain.nfs.iter().position(|n| n.id == inst.id).unwrap_or(0);
        let node = chain.node_of(idx);
        let preds: Vec<usize> = chain
            .graph
            .neighbors_directed(node, petgraph::Direction::Incoming)
            .map(|p| chain.graph[p])
            .collect();
        let input: Vec<TestPacket> = if preds.is_empty() {
            packets.clone()
        } else {
            preds
                .iter()
                .flat_map(|p| forwarded.get(p).cloned().unwrap_or_default())
                .collect()
        };
        let Some((_, built)) = objects.iter().find(|(id, _)| *id == inst.id.0) else {
            out.nfs.insert(inst.id.0.clone(), Err("not built".into()));
            continue;
        };
        match access_profile::profile(
            &built.ll,
            &inst.id.0,
            &inst.config.flatten(),
            &input,
            &[],
            &opts,
        ) {
            Ok(p) => {
                forwarded.insert(idx, p.forwarded);
                out.nfs.insert(inst.id.0.clone(), Ok(p.profile));
            }
            Err(e) => {
                diags.push(
                    warn(format!("no access profile for NF `{}`: {e}", inst.id))
                        .with_span_opt(inst.span.clone()),
                );
                out.nfs.insert(inst.id.0.clone(), Err(e.to_string()));
            }
        }
    }
    Ok((out, diags))
}

fn warn(msg: String) -> Diagnostic {
    Diagnostic::warning("E0911", msg).with_hint(
        "the plan uses one access per packet per state object (a flagged proxy) for this NF",
    )
}

/// The placement items of one profiled NF: every state member, and every
/// global the packet path accesses (globals only `nf_init` touches are
/// constants of the port, not state). Frequency: accesses per packet offered
/// to the chain (the NF's per-packet count × its share of the chain's packets).
pub fn measured_items(p: &AccessProfile, chain_packets: usize) -> Vec<StateItem> {
    let share = p.packets as f64 / chain_packets.max(1) as f64;
    p.objects
        .iter()
        .filter(|o| o.kind == ObjectKind::State || o.loads_per_packet + o.stores_per_packet > 0.0)
        .map(|o| StateItem {
            nf: p.nf.clone(),
            object: o.name.clone(),
            size: Some(o.bytes),
            frequency: (o.loads_per_packet + o.stores_per_packet) * share,
            frequency_source: FrequencySource::Measured,
        })
        .collect()
}

/// The coalescing input of one NF: its globals (Clara packs global
/// variables; per-flow state already lives in the NF's state struct, whose
/// layout the NF defines) with their per-block access counts.
pub fn coalesce_variables(p: &AccessProfile) -> Vec<nfc_smartnic::coalesce::Variable> {
    p.objects
        .iter()
        .filter(|o| o.kind == ObjectKind::Global)
        .map(|o| nfc_smartnic::coalesce::Variable {
            name: o.name.clone(),
            bytes: o.bytes,
            per_block: o.per_block.clone(),
        })
        .collect()
}
