//! The `agilio` target: porting advice for a Netronome Agilio SmartNIC as a
//! JSON plan and a Micro-C placement header (docs/targets/agilio.md).
//!
//! What it decides: where every state object lives (CLS/CTM/IMEM/EMEM, the
//! placer's exact ILP, [`nfc_placer::smartnic`]) from access frequencies
//! measured by running each NF instrumented over the chain's traffic
//! ([`super::agilio_profile`]; an NF that cannot be profiled falls back to a
//! flagged proxy), and which variables to pack and access together
//! ([`nfc_smartnic::coalesce`]); the learned decisions (core counts,
//! accelerator rewrites, the colocation ranking of the chain's NF pairs) from
//! Clara's models applied through documented mappings of the NFs' measures
//! ([`super::agilio_models`]). What it cannot decide says so with the reason
//! instead of a number (docs/targets/agilio.md). No Netronome hardware or compiler is available
//! here; nothing emitted is validated on one.

use super::agilio_models::{self, AccelFinding, ScaleOut};
use super::agilio_profile::{coalesce_variables, measured_items, ChainProfile};
use crate::Failure;
use nfc_core::{ChainSpec, Diagnostic, Facts};
use nfc_placer::smartnic::{self, FrequencySource, MemoryLevel, StateItem};
use nfc_smartnic::accel::{AccelKind, AccelModel};
use nfc_smartnic::coalesce::Coalescing;
use nfc_smartnic::colocation::{Ranker, PROFILE_INPUTS};
use nfc_smartnic::features::{NfMeasures, ProgramProfile, COMPUTE_INSTRUCTIONS_PER_UNIT};
use nfc_smartnic::scale_out::{suggest_for_profile, ProfileSuggestion};
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
    /// Every pair of the chain's NFs ranked by predicted friendliness (Clara §4.5).
    pub colocation: Decided<ColocationAdvice>,
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
    pub cores: Decided<CoreAdvice>,
    pub state: Vec<StateAdvice>,
    pub accelerators: Decided<Vec<AcceleratorAdvice>>,
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

/// A suggested accelerator rewrite of one function.
#[derive(Debug, Clone, Serialize)]
pub struct AcceleratorAdvice {
    pub function: String,
    pub kind: String,
    pub rewrite: String,
    pub confidence: f64,
    pub evidence: String,
}

/// The suggested core count of an NF (Clara §4.2) and how it was derived.
#[derive(Debug, Clone, Serialize)]
pub struct CoreAdvice {
    /// The suggestion at the assumed compute scale.
    pub value: u32,
    /// The smallest and largest suggestion over the stated uncertainty
    /// (½× and 2× the assumed compute scale, the neighbours' quartiles).
    pub range: (u32, u32),
    /// What nfc measured of the NF (the mapping's inputs).
    pub measures: NfMeasures,
    /// The model inputs the mapping derived (docs/smartnic.md, "Chain NFs").
    pub profile: ProgramProfile,
    pub instructions_per_compute_unit: f64,
    pub suggestion: ProfileSuggestion,
    pub uncertainty: String,
}

/// One pair of the chain's NFs in the colocation ranking.
#[derive(Debug, Clone, Serialize)]
pub struct PairAdvice {
    pub rank: usize,
    pub nfs: [String; 2],
    /// Clara's objective as the ranker predicts it: the two NFs' colocated
    /// throughputs over their solo throughputs (1 = no interference).
    pub predicted_friendliness: f64,
}

/// The colocation ranking of the chain's NFs (Clara §4.5) and how it was derived.
#[derive(Debug, Clone, Serialize)]
pub struct ColocationAdvice {
    /// Every pair of the ranked NFs, friendliest first.
    pub ranking: Vec<PairAdvice>,
    /// The per-NF model inputs (the mapping of docs/smartnic.md, "Chain NFs").
    pub inputs: Vec<&'static str>,
    /// Whether the order is the same at 1/2x and 2x the assumed compute
    /// instructions per Clara compute unit.
    pub stable_under_compute_scale: bool,
    /// NFs left out of the ranking, with why (no measured profile).
    pub unranked: Vec<Unranked>,
    pub uncertainty: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Unranked {
    pub nf: String,
    pub why: String,
}

/// The learned models the plan applies, or why each is unavailable.
pub struct PlanModels {
    pub scale_out: Result<ScaleOut, String>,
    pub accel: Result<AccelModel, String>,
    pub colocation: Result<Ranker, String>,
}

impl PlanModels {
    /// Train (or load from the workspace's cache) both models.
    pub fn load(ws: &crate::driver::Workspace) -> Self {
        PlanModels {
            scale_out: agilio_models::scale_out(ws),
            accel: agilio_models::accel(ws),
            colocation: agilio_models::colocation(ws),
        }
    }

    /// Neither model (every learned decision is unknown with `why`).
    pub fn none(why: &str) -> Self {
        PlanModels {
            scale_out: Err(why.into()),
            accel: Err(why.into()),
            colocation: Err(why.into()),
        }
    }
}

/// Neighbours of a chain NF's profile among Clara's training programs.
pub const CORE_NEIGHBOURS: usize = 15;

fn rewrite_of(kind: AccelKind) -> &'static str {
    match kind {
        AccelKind::Crc => "call the NFP's hardware CRC unit instead of computing the CRC in software",
        AccelKind::Lpm => "use the NFP's lookup engine (LPM tables in IMEM/EMEM) instead of the software longest-prefix match",
        AccelKind::None => "none",
    }
}

fn accel_advice(f: &AccelFinding) -> AcceleratorAdvice {
    let margins: Vec<String> = f
        .margins
        .iter()
        .map(|(k, m)| format!("{} {m:.2}", k.name()))
        .collect();
    AcceleratorAdvice {
        function: f.function.clone(),
        kind: f.kind.name().to_string(),
        rewrite: rewrite_of(f.kind).to_string(),
        confidence: (f.confidence * 1e3).round() / 1e3,
        evidence: format!(
            "`{}` in {} ({} IR instructions, lowered by insight_ir): the accelerator classifier's SVM margins {} (> 0 flags); its held-out precision and recall are in docs/smartnic.md",
            f.function,
            f.file,
            f.instructions,
            margins.join(", ")
        ),
    }
}

fn core_advice(so: &ScaleOut, m: NfMeasures) -> Option<CoreAdvice> {
    let at = |unit: f64| {
        suggest_for_profile(
            &so.model,
            &so.programs,
            &ProgramProfile::from_measures(&m, unit),
            &so.cores,
            CORE_NEIGHBOURS,
        )
    };
    let mid = at(COMPUTE_INSTRUCTIONS_PER_UNIT)?;
    let mut lo = mid.quartiles.0;
    let mut hi = mid.quartiles.1;
    for f in [0.5, 2.0] {
        if let Some(s) = at(COMPUTE_INSTRUCTIONS_PER_UNIT * f) {
            lo = lo.min(s.cores);
            hi = hi.max(s.cores);
        }
    }
    Some(CoreAdvice {
        value: mid.cores,
        range: (lo, hi),
        measures: m,
        profile: ProgramProfile::from_measures(&m, COMPUTE_INSTRUCTIONS_PER_UNIT),
        instructions_per_compute_unit: COMPUTE_INSTRUCTIONS_PER_UNIT,
        uncertainty: format!(
            "the knee of Clara's scale-out GBDT (held-out Clara NFs: see docs/smartnic.md) for the {} Clara programs nearest to this NF's mapped profile (standardised distance {:.2}-{:.2}); range = their quartiles and the suggestion at 1/2x and 2x the assumed {} compute instructions per Clara compute unit, which no data here calibrates; the mapping itself is not validated on hardware{}",
            mid.knees.len(),
            mid.distance.0,
            mid.distance.1,
            COMPUTE_INSTRUCTIONS_PER_UNIT,
            if so.cores.last() == Some(&mid.cores) {
                format!("; {} is the most cores Clara measured (nearly) every NF at, so more might still pay", mid.cores)
            } else {
                String::new()
            }
        ),
        suggestion: mid,
    })
}

/// A decision nfc cannot make yet, with why.
#[derive(Debug, Clone, Serialize)]
pub struct Unknown {
    pub value: Option<u32>,
    pub unknown: String,
}

/// What nfc measured of an NF, the inputs of the mapping to Clara's models
/// (docs/smartnic.md, "Chain NFs → model inputs"); `Err` when the NF has no
/// access profile.
fn measures_of(
    nf: &str,
    prof: Option<&nfc_reducer::access_profile::AccessProfile>,
    items: &[StateItem],
    placed: &[usize],
    levels: &[MemoryLevel],
    accelerators: &std::collections::BTreeMap<String, Result<Vec<AccelFinding>, String>>,
) -> Result<NfMeasures, String> {
    let Some(p) = prof else {
        return Err(
            "needs the NF's measured compute and accesses per packet (no access profile)".into(),
        );
    };
    let mine: Vec<(&StateItem, &usize)> = items
        .iter()
        .zip(placed)
        .filter(|(i, _)| i.nf == nf)
        .collect();
    Ok(NfMeasures {
        compute_instructions: p.compute_per_packet,
        state_accesses: p
            .objects
            .iter()
            .map(|o| o.loads_per_packet + o.stores_per_packet)
            .sum(),
        accelerator_calls: accelerators
            .get(nf)
            .and_then(|r| r.as_ref().ok())
            .map_or(0.0, |v| v.len() as f64),
        state_objects: mine.iter().filter(|(i, _)| i.frequency > 0.0).count() as f64,
        on_chip_objects: mine
            .iter()
            .filter(|(i, &j)| i.frequency > 0.0 && levels[j].name != "emem")
            .count() as f64,
    })
}

fn cores_of(models: &PlanModels, m: &Result<NfMeasures, String>) -> Decided<CoreAdvice> {
    let unknown = |why: String| {
        Decided::Unknown(Unknown {
            value: None,
            unknown: why,
        })
    };
    let so = match &models.scale_out {
        Ok(so) => so,
        Err(why) => return unknown(format!("no scale-out model: {why}")),
    };
    let m = match m {
        Ok(m) => *m,
        Err(why) => return unknown(why.clone()),
    };
    match core_advice(so, m) {
        Some(c) => Decided::Known(c),
        None => unknown("the scale-out model has no training programs or core counts".into()),
    }
}

/// Rank every pair of the chain's profiled NFs with the colocation ranker on
/// their mapped profiles; the order's stability under the uncalibrated
/// compute scale is part of the answer.
fn colocation_of(
    ranker: &Result<Ranker, String>,
    measures: &[(String, Result<NfMeasures, String>)],
) -> Decided<ColocationAdvice> {
    let unknown = |why: String| {
        Decided::Unknown(Unknown {
            value: None,
            unknown: why,
        })
    };
    if measures.len() < 2 {
        return unknown("the chain has one NF: there is no pair to colocate".into());
    }
    let ranker = match ranker {
        Ok(r) => r,
        Err(why) => return unknown(format!("no colocation ranker: {why}")),
    };
    let (known, unranked): (Vec<_>, Vec<_>) = measures.iter().partition(|(_, m)| m.is_ok());
    let unranked: Vec<Unranked> = unranked
        .into_iter()
        .map(|(nf, m)| Unranked {
            nf: nf.clone(),
            why: m.as_ref().err().cloned().unwrap_or_default(),
        })
        .collect();
    if known.len() < 2 {
        return unknown(format!(
            "fewer than two NFs have a measured profile ({})",
            unranked
                .iter()
                .map(|u| format!("{}: {}", u.nf, u.why))
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    let names: Vec<&String> = known.iter().map(|(n, _)| n).collect();
    let rank_at = |unit: f64| {
        let profiles: Vec<ProgramProfile> = known
            .iter()
            .filter_map(|(_, m)| m.as_ref().ok())
            .map(|m| ProgramProfile::from_measures(m, unit))
            .collect();
        ranker.rank_profiles(&profiles)
    };
    let mid = match rank_at(COMPUTE_INSTRUCTIONS_PER_UNIT) {
        Ok(r) => r,
        Err(why) => return unknown(why),
    };
    let pairs_of = |r: &[nfc_smartnic::colocation::RankedPair]| -> Vec<[usize; 2]> {
        r.iter().map(|p| p.nfs).collect()
    };
    let stable = [0.5, 2.0].iter().all(|f| {
        rank_at(COMPUTE_INSTRUCTIONS_PER_UNIT * f).is_ok_and(|r| pairs_of(&r) == pairs_of(&mid))
    });
    let gap = match (mid.first(), mid.get(1)) {
        (Some(a), Some(b)) => Some(a.predicted_friendliness - b.predicted_friendliness),
        _ => None,
    };
    Decided::Known(ColocationAdvice {
        ranking: mid
            .iter()
            .enumerate()
            .map(|(k, p)| PairAdvice {
                rank: k + 1,
                nfs: [names[p.nfs[0]].clone(), names[p.nfs[1]].clone()],
                predicted_friendliness: (p.predicted_friendliness * 1e3).round() / 1e3,
            })
            .collect(),
        inputs: PROFILE_INPUTS.to_vec(),
        stable_under_compute_scale: stable,
        unranked,
        uncertainty: format!(
            "Clara's decomposed colocation ranker retrained on the profile quantities alone (a chain NF has none of Clara's generator knobs); its held-out top-1/top-3 on Clara's groups are in docs/smartnic.md; each NF's profile is mapped from its measured run as for `cores`, with the assumed {} compute instructions per Clara compute unit ({} at 1/2x and 2x){}; the mapping and the ranking are not validated on hardware",
            COMPUTE_INSTRUCTIONS_PER_UNIT,
            if stable { "the order is the same" } else { "the order changes" },
            match gap {
                Some(g) if g.abs() < 0.01 => format!(
                    "; the first two pairs are predicted within {:.1}% of each other, and on Clara's data margins under 1% are often decided by measurement noise (docs/smartnic.md): treat them as a tie",
                    100.0 * g.abs()
                ),
                _ => String::new(),
            }
        ),
    })
}

/// Plan the chain for the Agilio target from the NFs' measured access
/// profiles (`profile`; NFs without one use the proxy). Errors are located
/// diagnostics (e.g. a state object no memory level can hold).
pub fn plan(
    chain: &ChainSpec,
    facts: &[Facts],
    profile: Option<&ChainProfile>,
    models: &PlanModels,
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
    let accelerators: std::collections::BTreeMap<String, Result<Vec<AccelFinding>, String>> = facts
        .iter()
        .map(|f| {
            let r = match (&models.accel, chain.nf(&f.nf)) {
                (Err(why), _) => Err(format!("no accelerator classifier: {why}")),
                (Ok(_), None) => Err("the NF is not an instance of the chain file".into()),
                (Ok(m), Some(inst)) => agilio_models::classify_nf(m, inst),
            };
            (f.nf.clone(), r)
        })
        .collect();
    let measures: Vec<(String, Result<NfMeasures, String>)> = facts
        .iter()
        .map(|f| {
            let prof = profile.and_then(|p| p.of(&f.nf));
            (
                f.nf.clone(),
                measures_of(&f.nf, prof, &items, &placed.level, &levels, &accelerators),
            )
        })
        .collect();
    let nfs = facts
        .iter()
        .zip(&measures)
        .map(|(f, (_, m))| {
            let prof = profile.and_then(|p| p.of(&f.nf));
            let why_not = profile
                .and_then(|p| p.nfs.get(&f.nf))
                .and_then(|r| r.as_ref().err().cloned())
                .unwrap_or_else(|| "the NF was not profiled".into());
            NfAdvice {
                nf: f.nf.clone(),
                cores: cores_of(models, m),
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
                accelerators: match accelerators.get(&f.nf) {
                    Some(Ok(found)) => Decided::Known(found.iter().map(accel_advice).collect()),
                    Some(Err(why)) => Decided::Unknown(Unknown {
                        value: None,
                        unknown: why.clone(),
                    }),
                    None => Decided::Unknown(Unknown {
                        value: None,
                        unknown: "not classified".into(),
                    }),
                },
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
        colocation: colocation_of(&models.colocation, &measures),
        profile_traffic: profile.map(|p| format!("{} packets: {}", p.packets, p.source)),
        validated: "state placement: the ILP's optimum equals exhaustive search (tests); access frequencies: counted per object by an instrumented run of each NF on this host (LLVM default<O2> code, not a Netronome compiler's); coalescing: packing measured with cachegrind on this host (docs/targets/agilio.md); cores, accelerators and colocation: models scored on held-out Clara programs and corpus files (docs/smartnic.md), their mapping to this chain's NFs not validated; no Netronome hardware or compiler was available, so nothing here was compiled or measured on a NIC",
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
            Decided::Known(c) => t.push_str(&format!(
                "  cores: {} (range {}-{}; compute {} units, memory {} accesses, {} accelerator calls, {} objects, {} on chip; {})\n",
                c.value,
                c.range.0,
                c.range.1,
                fmt_num((c.profile.compute_work * 100.0).round() / 100.0),
                fmt_num((c.profile.memory_work * 100.0).round() / 100.0),
                c.profile.accelerator_calls,
                c.profile.elements,
                c.profile.imem_structures,
                c.uncertainty
            )),
            Decided::Unknown(u) => t.push_str(&format!("  cores: unknown ({})\n", u.unknown)),
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
        match &nf.accelerators {
            Decided::Known(v) if v.is_empty() => {
                t.push_str("  accelerators: none found (no function flagged CRC or LPM)\n")
            }
            Decided::Known(v) => {
                for a in v {
                    t.push_str(&format!(
                        "  accelerator: {} `{}`, confidence {:.2}: {} ({})\n",
                        a.kind, a.function, a.confidence, a.rewrite, a.evidence
                    ));
                }
            }
            Decided::Unknown(u) => {
                t.push_str(&format!("  accelerators: unknown ({})\n", u.unknown))
            }
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
        Decided::Known(c) => {
            t.push_str(&format!(
                "colocation (friendliest pair first; predicted colocated / solo throughput): {}\n",
                c.uncertainty
            ));
            for p in &c.ranking {
                t.push_str(&format!(
                    "  {}. {} + {}: {:.3}\n",
                    p.rank, p.nfs[0], p.nfs[1], p.predicted_friendliness
                ));
            }
            for u in &c.unranked {
                t.push_str(&format!("  not ranked: {} ({})\n", u.nf, u.why));
            }
        }
        Decided::Unknown(u) => t.push_str(&format!("colocation: unknown ({})\n", u.unknown)),
    }
    t
}
