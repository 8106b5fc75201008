//! The `agilio` target: porting advice for a Netronome Agilio SmartNIC as a
//! JSON plan and a Micro-C placement header (docs/targets/agilio.md).
//!
//! What it decides: where every state object lives (CLS/CTM/IMEM/EMEM, the
//! placer's exact ILP, [`nfc_placer::smartnic`]) from access frequencies
//! measured by running each NF instrumented over the chain's traffic
//! ([`super::agilio_profile`]; an NF that cannot be profiled falls back to a
//! flagged proxy), and which variables to pack and access together
//! ([`nfc_smartnic::coalesce`]). What it cannot decide yet says so with the
//! reason instead of a number (core counts and colocation: see
//! docs/targets/agilio.md). No Netronome hardware or compiler is available
//! here; nothing emitted is validated on one.

use super::agilio_profile::{coalesce_variables, measured_items, ChainProfile};
use crate::Failure;
use nfc_core::{ChainSpec, Diagnostic, Facts};
use nfc_placer::smartnic::{self, FrequencySource, MemoryLevel, StateItem};
use nfc_smartnic::coalesce::Coalescing;
use serde::Serialize;

/// The plan written to `agilio-plan.json`.
#[derive(Debug, Clone, Serialize)]
pub struct AgilioPlan {
    pub chain: String,
    pub smartnic: String,
    pub nic_cores: u32,
    /// The memory hierarchy used (defaults with chain.yaml's overrides).
    pub memory_levels: Vec<MemoryLevel>,
    pub nfs: Vec<NfAdvice>,
    /// Σ latency × accesses per packet of the placement, in cycles.
    pub placement_cost: f64,
    /// Same objective with every object in EMEM (Clara's naive-port baseline).
    pub all_emem_cost: f64,
    pub colocation: Unknown,
    /// The traffic the access profiles ran (none: every frequency is the proxy).
    pub profile_traffic: Option<String>,
    pub validated: &'static str,
}

/// A decision, or why nfc cannot make it.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Decided<T> {
    Known(T),
    Unknown(Unknown),
}

/// What the instrumented run measured for the NF as a whole.
#[derive(Debug, Clone, Serialize)]
pub struct ProfileSummary {
    pub packets: u64,
    pub forwarded: u64,
    /// LLVM instructions executed per packet (host `default<O2>` code).
    pub instructions_per_packet: f64,
    pub compute_per_packet: f64,
    pub state_and_global_accesses_per_packet: f64,
    pub packet_accesses_per_packet: f64,
    pub other_accesses_per_packet: f64,
    /// Distinct 64-byte lines of state and globals touched per packet.
    pub lines_per_packet: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct NfAdvice {
    pub nf: String,
    pub cores: Unknown,
    pub state: Vec<StateAdvice>,
    pub accelerators: Vec<AcceleratorAdvice>,
    pub coalescing: Decided<Coalescing>,
    pub profile: Decided<ProfileSummary>,
}

#[derive(Debug, Clone, Serialize)]
pub struct StateAdvice {
    pub object: String,
    pub bytes: Option<u64>,
    pub level: String,
    pub accesses_per_packet: f64,
    /// Measured loads and stores per packet the NF processed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loads_per_packet: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stores_per_packet: Option<f64>,
    pub frequency_source: FrequencySource,
    pub reason: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct AcceleratorAdvice {
    pub kind: String,
    pub evidence: String,
}

/// A decision nfc cannot make yet, with why.
#[derive(Debug, Clone, Serialize)]
pub struct Unknown {
    pub value: Option<u32>,
    pub unknown: String,
}

const NO_PROFILE: &str = "the learned models (`nfc smartnic`, docs/smartnic.md) take the knobs of Clara's synthetic NF generator, and no mapping from an NF's measured profile (the `profile` here) to those knobs with a known error exists yet";

/// Plan the chain for the Agilio target from the NFs' measured access
/// profiles (`profile`; NFs without one use the proxy). Errors are located
/// diagnostics (e.g. a state object no memory level can hold).
pub fn plan(
    chain: &ChainSpec,
    facts: &[Facts],
    profile: Option<&ChainProfile>,
) -> Result<AgilioPlan, Failure> {
    let nic = chain
        .resources
        .smartnic
        .clone()
        .unwrap_or(nfc_core::chain::SmartNic {
            model: "agilio-cx".into(),
            cores: 60,
            memory: Default::default(),
        });
    let levels = smartnic::levels_with_overrides(&nic.memory);
    let mut items = vec![];
    for f in facts {
        match profile.and_then(|p| Some((p.of(&f.nf)?, p.packets))) {
            Some((p, n)) => items.extend(measured_items(p, n)),
            None => items.extend(smartnic::state_items(std::slice::from_ref(f))),
        }
    }
    let placed = smartnic::place_state_ilp(&items, &levels).map_err(|e| {
        Failure::diag(
            Diagnostic::error("E0910", format!("no SmartNIC state placement: {e}")).with_hint(
                "raise `resources.smartnic.memory.<level>.capacity`, or shrink the NF's tables",
            ),
        )
    })?;
    let emem = levels
        .iter()
        .position(|l| l.name == "emem")
        .unwrap_or(levels.len() - 1);
    let all_emem_cost = items
        .iter()
        .map(|i| levels[emem].latency * i.frequency)
        .sum();
    let nfs = facts
        .iter()
        .map(|f| {
            let prof = profile.and_then(|p| p.of(&f.nf));
            let why_not = profile
                .and_then(|p| p.nfs.get(&f.nf))
                .and_then(|r| r.as_ref().err().cloned())
                .unwrap_or_else(|| "the NF was not profiled".into());
            NfAdvice {
                nf: f.nf.clone(),
                cores: Unknown {
                    value: None,
                    unknown: NO_PROFILE.into(),
                },
                state: items
                    .iter()
                    .zip(&placed.level)
                    .filter(|(i, _)| i.nf == f.nf)
                    .map(|(i, &j)| {
                        let o = prof.and_then(|p| p.objects.iter().find(|o| o.name == i.object));
                        StateAdvice {
                            object: i.object.clone(),
                            bytes: i.size,
                            level: levels[j].name.clone(),
                            accesses_per_packet: i.frequency,
                            loads_per_packet: o.map(|o| o.loads_per_packet),
                            stores_per_packet: o.map(|o| o.stores_per_packet),
                            frequency_source: i.frequency_source,
                            reason: reason(i, j, &levels),
                        }
                    })
                    .collect(),
                accelerators: f
                    .accelerators
                    .iter()
                    .map(|a| AcceleratorAdvice {
                        kind: format!("{a:?}"),
                        evidence: "from the analyzer's facts".into(),
                    })
                    .collect(),
                coalescing: match prof {
                    Some(p) => Decided::Known(nfc_smartnic::coalesce::coalesce(
                        &coalesce_variables(p),
                        0x5eed,
                    )),
                    None => Decided::Unknown(Unknown {
                        value: None,
                        unknown: format!(
                            "needs per-variable access vectors from an instrumented run: {why_not}"
                        ),
                    }),
                },
                profile: match prof {
                    Some(p) => Decided::Known(ProfileSummary {
                        packets: p.packets,
                        forwarded: p.forwarded,
                        instructions_per_packet: p.instructions_per_packet,
                        compute_per_packet: p.compute_per_packet,
                        state_and_global_accesses_per_packet: p
                            .objects
                            .iter()
                            .map(|o| o.loads_per_packet + o.stores_per_packet)
                            .sum(),
                        packet_accesses_per_packet: p.packet_data.loads_per_packet
                            + p.packet_data.stores_per_packet,
                        other_accesses_per_packet: p.other.loads_per_packet
                            + p.other.stores_per_packet,
                        lines_per_packet: p.lines_per_packet,
                    }),
                    None => Decided::Unknown(Unknown {
                        value: None,
                        unknown: why_not.clone(),
                    }),
                },
            }
        })
        .collect();
    Ok(AgilioPlan {
        chain: chain.name.clone(),
        smartnic: nic.model,
        nic_cores: nic.cores,
        memory_levels: levels,
        nfs,
        placement_cost: placed.cost,
        all_emem_cost,
        colocation: Unknown { value: None, unknown: NO_PROFILE.into() },
        profile_traffic: profile.map(|p| format!("{} packets: {}", p.packets, p.source)),
        validated: "state placement: the ILP's optimum equals exhaustive search (tests); access frequencies: counted per object by an instrumented run of each NF on this host (LLVM default<O2> code, not a Netronome compiler's); coalescing: packing measured with cachegrind on this host (docs/targets/agilio.md); no Netronome hardware or compiler was available, so nothing here was compiled or measured on a NIC",
    })
}

fn reason(item: &StateItem, j: usize, levels: &[MemoryLevel]) -> String {
    let l = &levels[j];
    let size = match item.size {
        Some(s) => format!("{s} B"),
        None => "size unknown".into(),
    };
    let faster: Vec<&str> = levels
        .iter()
        .filter(|o| o.latency < l.latency)
        .map(|o| o.name.as_str())
        .collect();
    let why = if item.frequency == 0.0 {
        "never accessed on the traffic, so no level is cheaper for it".to_string()
    } else if item.size.is_none() {
        "the largest level, the only one assumed to hold an object of unknown size".to_string()
    } else if faster.is_empty() {
        "the fastest level".to_string()
    } else {
        format!(
            "{} cannot hold it alongside the objects placed there",
            faster.join(", ")
        )
    };
    let freq = match item.frequency_source {
        FrequencySource::Measured => format!(
            "{} accesses/packet (measured)",
            fmt_num((item.frequency * 1e4).round() / 1e4)
        ),
        FrequencySource::Proxy => format!("{} access/packet (PROXY, not measured)", item.frequency),
    };
    format!("{size}, {freq}; {}: {why}", l.name)
}

fn c_ident(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect()
}

/// The Micro-C header: one `__declspec` macro per state object, to put on the
/// object's definition when the NF is ported.
pub fn header(plan: &AgilioPlan) -> String {
    let mut s = format!(
        "/* Generated by nfc for chain `{}` ({}): SmartNIC state placement.\n * Apply with the Netronome SDK: put NFC_PLACE_<NF>_<OBJECT> on the object's definition,\n * e.g. `NFC_PLACE_FW_FLOWS struct flow_entry flows[N];`. Not compiled or measured on a NIC:\n * no Netronome hardware or compiler was available (docs/targets/agilio.md). */\n#ifndef NFC_AGILIO_PLACEMENT_H\n#define NFC_AGILIO_PLACEMENT_H\n\n",
        plan.chain, plan.smartnic
    );
    for nf in &plan.nfs {
        for st in &nf.state {
            s += &format!("/* {}.{}: {} */\n", nf.nf, st.object, st.reason);
            s += &format!(
                "#define NFC_PLACE_{}_{} __declspec({} export)\n",
                c_ident(&nf.nf),
                c_ident(&st.object),
                st.level
            );
        }
    }
    s += "\n#endif /* NFC_AGILIO_PLACEMENT_H */\n";
    s
}

/// Write the plan (`agilio-plan.json`) and the Micro-C header
/// (`agilio_placement.h`) into `out_dir`; the files written.
pub fn write_target(
    plan: &AgilioPlan,
    out_dir: &std::path::Path,
) -> Result<Vec<std::path::PathBuf>, Failure> {
    std::fs::create_dir_all(out_dir)
        .map_err(|e| Failure::io(format!("creating {}", out_dir.display()), e))?;
    let json = serde_json::to_string_pretty(plan)
        .map_err(|e| Failure::io("serialising the agilio plan", std::io::Error::other(e)))?;
    let mut written = vec![];
    for (name, text) in [
        ("agilio-plan.json", json),
        ("agilio_placement.h", header(plan)),
    ] {
        let path = out_dir.join(name);
        std::fs::write(&path, text)
            .map_err(|e| Failure::io(format!("writing {}", path.display()), e))?;
        written.push(path);
    }
    Ok(written)
}

fn fmt_num(x: f64) -> String {
    if x == x.round() {
        format!("{x:.0}")
    } else {
        let s = format!("{x:.4}");
        s.trim_end_matches('0').to_string()
    }
}

/// The SmartNIC decisions for people (`nfc explain --smartnic`).
pub fn human(plan: &AgilioPlan) -> String {
    let mut t = format!(
        "{} ({} cores); state placement cost {} cycles/packet vs {} with everything in EMEM\n",
        plan.smartnic,
        plan.nic_cores,
        fmt_num(plan.placement_cost),
        fmt_num(plan.all_emem_cost)
    );
    t.push_str(&format!(
        "access frequencies: {}\n",
        plan.profile_traffic
            .as_deref()
            .unwrap_or("not measured (proxy: one access per packet per object)")
    ));
    for nf in &plan.nfs {
        t.push_str(&format!("{}:\n", nf.nf));
        match &nf.cores {
            Unknown { value: Some(v), .. } => t.push_str(&format!("  cores: {v}\n")),
            Unknown { unknown, .. } => t.push_str(&format!("  cores: unknown ({unknown})\n")),
        }
        match &nf.profile {
            Decided::Known(p) => t.push_str(&format!(
                "  profile: {} packets, {} instructions/packet ({} compute), {} state/global accesses, {} packet accesses, {} lines/packet\n",
                p.packets,
                fmt_num(p.instructions_per_packet),
                fmt_num(p.compute_per_packet),
                fmt_num(p.state_and_global_accesses_per_packet),
                fmt_num(p.packet_accesses_per_packet),
                fmt_num(p.lines_per_packet)
            )),
            Decided::Unknown(u) => t.push_str(&format!("  profile: none ({})\n", u.unknown)),
        }
        for st in &nf.state {
            t.push_str(&format!("  {:<5} {}: {}\n", st.level, st.object, st.reason));
        }
        for a in &nf.accelerators {
            t.push_str(&format!("  accelerator: {} ({})\n", a.kind, a.evidence));
        }
        match &nf.coalescing {
            Decided::Known(c) => {
                t.push_str(&format!(
                    "  coalescing: {} candidates, k = {} ({}{})\n",
                    c.candidates,
                    c.k,
                    c.criterion,
                    c.silhouette
                        .map_or(String::new(), |s| format!(", silhouette {s:.3}"))
                ));
                for p in &c.packs {
                    let members: Vec<String> =
                        p.layout.iter().map(|(n, o)| format!("{n}@{o}")).collect();
                    t.push_str(&format!(
                        "    pack {{{}}}: {} B, {} access(es) of {} B\n",
                        members.join(", "),
                        p.bytes,
                        p.accesses,
                        p.access_bytes
                    ));
                }
            }
            Decided::Unknown(u) => t.push_str(&format!("  coalescing: unknown ({})\n", u.unknown)),
        }
    }
    match &plan.colocation {
        Unknown { value: Some(v), .. } => t.push_str(&format!("colocation: {v}\n")),
        Unknown { unknown, .. } => t.push_str(&format!("colocation: unknown ({unknown})\n")),
    }
    t
}
