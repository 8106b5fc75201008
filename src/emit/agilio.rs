//! The `agilio` target: porting advice for a Netronome Agilio SmartNIC as a
//! JSON plan and a Micro-C placement header (docs/targets/agilio.md).
//!
//! What it decides today: where every state object lives (CLS/CTM/IMEM/EMEM,
//! the placer's exact ILP, [`nfc_placer::smartnic`]). What it cannot decide
//! yet says so with the reason instead of a number: core counts and
//! colocation need an NF's compute instructions and memory accesses per
//! packet, which come from IR-level prediction (not built), and access
//! frequencies are a flagged proxy until per-global access counting exists.
//! No Netronome hardware or compiler is available here; nothing emitted is
//! validated on one.

use crate::Failure;
use nfc_core::{ChainSpec, Diagnostic, Facts};
use nfc_placer::smartnic::{self, FrequencySource, MemoryLevel, StateItem};
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
    pub validated: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct NfAdvice {
    pub nf: String,
    pub cores: Unknown,
    pub state: Vec<StateAdvice>,
    pub accelerators: Vec<AcceleratorAdvice>,
    pub coalescing: Unknown,
}

#[derive(Debug, Clone, Serialize)]
pub struct StateAdvice {
    pub object: String,
    pub bytes: Option<u64>,
    pub level: String,
    pub accesses_per_packet: f64,
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

const NO_PROFILE: &str = "needs the NF's compute instructions and memory accesses per packet (IR-level prediction, not built yet); the learned models exist (`nfc smartnic`, docs/smartnic.md) but nothing maps this NF to their inputs yet";

/// Plan the chain for the Agilio target. Errors are located diagnostics
/// (e.g. a state object no memory level can hold).
pub fn plan(chain: &ChainSpec, facts: &[Facts]) -> Result<AgilioPlan, Failure> {
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
    let items = smartnic::state_items(facts);
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
        .map(|f| NfAdvice {
            nf: f.nf.clone(),
            cores: Unknown {
                value: None,
                unknown: NO_PROFILE.into(),
            },
            state: items
                .iter()
                .zip(&placed.level)
                .filter(|(i, _)| i.nf == f.nf)
                .map(|(i, &j)| StateAdvice {
                    object: i.object.clone(),
                    bytes: i.size,
                    level: levels[j].name.clone(),
                    accesses_per_packet: i.frequency,
                    frequency_source: i.frequency_source,
                    reason: reason(i, j, &levels),
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
            coalescing: Unknown {
                value: None,
                unknown: "needs per-global access vectors from an instrumented run (not built yet)"
                    .into(),
            },
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
        validated: "state placement: the ILP's optimum equals exhaustive search (tests); no Netronome hardware or compiler was available, so nothing here was compiled or measured on a NIC",
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
    let why = if item.size.is_none() {
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
        FrequencySource::Measured => format!("{} accesses/packet (measured)", item.frequency),
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
    chain: &ChainSpec,
    facts: &[Facts],
    out_dir: &std::path::Path,
) -> Result<Vec<std::path::PathBuf>, Failure> {
    let plan = plan(chain, facts)?;
    std::fs::create_dir_all(out_dir)
        .map_err(|e| Failure::io(format!("creating {}", out_dir.display()), e))?;
    let json = serde_json::to_string_pretty(&plan)
        .map_err(|e| Failure::io("serialising the agilio plan", std::io::Error::other(e)))?;
    let mut written = vec![];
    for (name, text) in [
        ("agilio-plan.json", json),
        ("agilio_placement.h", header(&plan)),
    ] {
        let path = out_dir.join(name);
        std::fs::write(&path, text)
            .map_err(|e| Failure::io(format!("writing {}", path.display()), e))?;
        written.push(path);
    }
    Ok(written)
}
