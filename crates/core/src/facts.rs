//! The analyzer's output: what an NF does with state, one [`Facts`] record per
//! NF, each answer backed by [`Evidence`] (source spans and a reason).
//!
//! The JSON names here are a stable contract (`nfc analyze --format json`):
//! `nf`, `stateful`, `flow_key`, `symmetric`, `intensity`, `pointer_chasing`,
//! `evidence`.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A packet header field that can key state or feed the RSS hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Field {
    SrcIp,
    DstIp,
    SrcPort,
    DstPort,
    Proto,
    SrcMac,
    DstMac,
}

impl Field {
    pub const ALL: [Field; 7] = [
        Field::SrcIp,
        Field::DstIp,
        Field::SrcPort,
        Field::DstPort,
        Field::Proto,
        Field::SrcMac,
        Field::DstMac,
    ];
    /// The IPv4 5-tuple.
    pub const FIVE_TUPLE: [Field; 5] = [
        Field::SrcIp,
        Field::DstIp,
        Field::SrcPort,
        Field::DstPort,
        Field::Proto,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Field::SrcIp => "src_ip",
            Field::DstIp => "dst_ip",
            Field::SrcPort => "src_port",
            Field::DstPort => "dst_port",
            Field::Proto => "proto",
            Field::SrcMac => "src_mac",
            Field::DstMac => "dst_mac",
        }
    }

    /// The field in the opposite direction of the same connection
    /// (src_ip <-> dst_ip, ...); `proto` mirrors itself.
    pub fn mirror(self) -> Field {
        match self {
            Field::SrcIp => Field::DstIp,
            Field::DstIp => Field::SrcIp,
            Field::SrcPort => Field::DstPort,
            Field::DstPort => Field::SrcPort,
            Field::Proto => Field::Proto,
            Field::SrcMac => Field::DstMac,
            Field::DstMac => Field::SrcMac,
        }
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Field {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Field::ALL
            .iter()
            .copied()
            .find(|f| f.name() == s)
            .ok_or_else(|| {
                format!(
                    "unknown field `{s}` (expected one of: {})",
                    Field::ALL.map(Field::name).join(", ")
                )
            })
    }
}

/// How often the NF writes its per-flow state (FlowMage's read/write intensity).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Intensity {
    /// Every packet writes state (counters, timestamps, token buckets).
    #[serde(rename = "per-packet")]
    PerPacket,
    /// Only the first packet of a flow (or rare events) writes state.
    #[serde(rename = "per-flow")]
    PerFlow,
    /// State is read on the packet path but never written there.
    #[serde(rename = "read-only")]
    ReadOnly,
    /// No per-flow state at all.
    #[serde(rename = "none")]
    None,
}

impl Intensity {
    pub fn name(self) -> &'static str {
        match self {
            Intensity::PerPacket => "per-packet",
            Intensity::PerFlow => "per-flow",
            Intensity::ReadOnly => "read-only",
            Intensity::None => "none",
        }
    }
}

impl fmt::Display for Intensity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Intensity {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "per-packet" => Ok(Intensity::PerPacket),
            "per-flow" => Ok(Intensity::PerFlow),
            "read-only" => Ok(Intensity::ReadOnly),
            "none" => Ok(Intensity::None),
            _ => Err(format!(
                "unknown intensity `{s}` (expected per-packet, per-flow, read-only or none)"
            )),
        }
    }
}

/// Which question a piece of evidence answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Question {
    Stateful,
    FlowKey,
    Symmetric,
    Intensity,
    PointerChasing,
    StateObject,
    Cost,
    Accelerator,
    /// Whether one instance per core, fed by RSS on the flow key, behaves
    /// like one instance (see [`Facts::split_hazards`]).
    Splittable,
}

/// A source location and the reason it supports an answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    pub question: Question,
    pub file: String,
    pub line_start: u32,
    pub line_end: u32,
    pub reason: String,
}

/// Where an answer came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Backend {
    #[default]
    Static,
    Llm,
    Both,
    /// Read from an NF's shipped `facts.yaml` (ground truth), not analysed.
    Declared,
}

/// A piece of state the NF keeps.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StateObject {
    pub name: String,
    /// Fields that key the entries; empty for scalars and global counters.
    pub key: Vec<Field>,
    /// Bytes per entry, when known.
    pub entry_bytes: Option<u64>,
    /// Number of entries, when known from constants or configuration.
    pub capacity: Option<u64>,
    /// True when the object is keyed per flow (not a global counter or table of rules).
    pub per_flow: bool,
    /// Reached through pointers (linked buckets, trees).
    pub pointer_chasing: bool,
}

/// A hardware accelerator that could run part of the NF (Clara §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Accelerator {
    Crc,
    Lpm,
    Checksum,
    Hash,
}

/// A question the code does not decide, and why. The answer field of
/// [`Facts`] then holds the conservative value (stateful, no flow key, not
/// symmetric, per-packet, pointer chasing), which keeps the NF shared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unknown {
    pub question: Question,
    pub reason: String,
}

/// State the packet path writes that no packet field keys (a port cursor, a
/// free list, a table indexed by a value the NF allocated, a global counter
/// that steers the verdict): two instances on two cores would diverge from
/// one, whatever the RSS hash, so the NF must stay shared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SplitHazard {
    /// The state object (variable, member or container) written.
    pub object: String,
    pub reason: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

/// Confidence of the combined answer, 0.0 ..= 1.0.
pub type Confidence = f32;

/// Everything the analyzer learned about one NF.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Facts {
    /// The NF's id in the chain, or its name when analysed standalone.
    pub nf: String,
    pub stateful: bool,
    /// Fields that key the per-flow state, sorted; empty when not stateful.
    pub flow_key: Vec<Field>,
    pub symmetric: bool,
    pub intensity: Intensity,
    pub pointer_chasing: bool,
    #[serde(default)]
    pub state_objects: Vec<StateObject>,
    /// Bytes per per-flow state entry (the largest per-flow object), if known.
    #[serde(default)]
    pub state_entry_bytes: Option<u64>,
    /// IR instructions on the common per-packet path, when the NF compiles.
    #[serde(default)]
    pub per_packet_cost: Option<u64>,
    /// A source-level cost estimate that exists even when nothing compiles
    /// (weighted statement count on the per-packet path).
    #[serde(default)]
    pub source_cost: Option<u64>,
    #[serde(default)]
    pub accelerators: Vec<Accelerator>,
    #[serde(default)]
    pub confidence: Confidence,
    #[serde(default)]
    pub backend: Backend,
    #[serde(default)]
    pub evidence: Vec<Evidence>,
    /// Why the NF cannot be split across cores by its flow key; empty when
    /// it can (or when it keeps no state at all).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub split_hazards: Vec<SplitHazard>,
    /// Questions the code does not decide; each answer above is then the
    /// conservative one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unknown: Vec<Unknown>,
}

impl Facts {
    /// Facts of an NF with no per-flow state.
    pub fn stateless(nf: impl Into<String>) -> Self {
        Facts {
            nf: nf.into(),
            stateful: false,
            flow_key: vec![],
            symmetric: false,
            intensity: Intensity::None,
            pointer_chasing: false,
            state_objects: vec![],
            state_entry_bytes: None,
            per_packet_cost: None,
            source_cost: None,
            accelerators: vec![],
            confidence: 1.0,
            backend: Backend::Static,
            evidence: vec![],
            split_hazards: vec![],
            unknown: vec![],
        }
    }

    /// The conservative facts of an NF nothing could be learned about:
    /// stateful with no known key (so it is never split), per-packet writes,
    /// pointer chasing; every question marked unknown with `reason`.
    pub fn unknown(nf: impl Into<String>, reason: impl Into<String>) -> Self {
        let reason = reason.into();
        let mut f = Facts::stateless(nf);
        f.mark_unknown(Question::FlowKey, reason.clone());
        f.mark_unknown(Question::Intensity, reason.clone());
        f.mark_unknown(Question::PointerChasing, reason.clone());
        f.mark_unknown(Question::Symmetric, reason.clone());
        f.mark_unknown(Question::Stateful, reason);
        // Listed in question order, statefulness first.
        f.unknown.rotate_right(1);
        f.confidence = 0.0;
        f
    }

    /// Record that the code does not decide `question` and set that answer to
    /// its conservative value (the one that permits the placer less).
    ///
    /// The key, write intensity, pointer chasing and symmetry describe the
    /// NF's per-flow state: when whether it keeps any is unknown, so are
    /// they (a default such as "no key" or "no writes" would be a guess).
    pub fn mark_unknown(&mut self, question: Question, reason: impl Into<String>) {
        let reason = reason.into();
        if question == Question::Stateful {
            for q in [
                Question::FlowKey,
                Question::Intensity,
                Question::PointerChasing,
                Question::Symmetric,
            ] {
                if !self.is_unknown(q) {
                    self.mark_unknown(
                        q,
                        format!("whether the NF keeps per-flow state is not decided: {reason}"),
                    );
                }
            }
        }
        match question {
            Question::Stateful => self.stateful = true,
            Question::FlowKey => {
                self.stateful = true;
                self.flow_key.clear();
            }
            Question::Symmetric => self.symmetric = false,
            Question::Intensity => self.intensity = Intensity::PerPacket,
            Question::PointerChasing => self.pointer_chasing = true,
            _ => {}
        }
        if !self.is_unknown(question) {
            self.unknown.push(Unknown { question, reason });
        }
    }

    /// True when the code did not decide `question`.
    pub fn is_unknown(&self, question: Question) -> bool {
        self.unknown.iter().any(|u| u.question == question)
    }

    /// True when one instance per core, fed by RSS on `flow_key`, behaves like
    /// one instance: no split hazard, and statefulness and key are known.
    pub fn splittable(&self) -> bool {
        self.split_hazards.is_empty()
            && !self.is_unknown(Question::Stateful)
            && !self.is_unknown(Question::FlowKey)
            && (!self.stateful || !self.flow_key.is_empty())
    }

    /// Best available per-packet cost: IR instruction count if known, else the
    /// source estimate, else 1.
    pub fn cost(&self) -> u64 {
        self.per_packet_cost
            .or(self.source_cost)
            .unwrap_or(1)
            .max(1)
    }

    /// Facts of the one NF that runs `parts` consolidated (a reduced
    /// segment), derived from the parts' facts by the rule that the answer
    /// which permits the placer less wins: stateful if any part is; the flow
    /// key is the intersection of the stateful parts' keys (RSS on those
    /// fields keeps every part's flows on one core; an empty intersection is
    /// global state); symmetric if any stateful part needs it; the most
    /// frequent write intensity; pointer chasing if any; every state object
    /// (named `part.object`), split hazard, unknown and piece of evidence;
    /// the lowest confidence. `cost_ratio` scales the summed costs (the
    /// reduced code's instructions over the parts').
    pub fn merged(nf: impl Into<String>, parts: &[Facts], cost_ratio: f64) -> Facts {
        let mut f = Facts::stateless(nf);
        let stateful: Vec<&Facts> = parts.iter().filter(|p| p.stateful).collect();
        f.stateful = !stateful.is_empty();
        if let Some((first, rest)) = stateful.split_first() {
            f.flow_key = first
                .flow_key
                .iter()
                .copied()
                .filter(|k| rest.iter().all(|p| p.flow_key.contains(k)))
                .collect();
        }
        f.symmetric = stateful.iter().any(|p| p.symmetric);
        f.intensity = parts
            .iter()
            .map(|p| p.intensity)
            .min()
            .unwrap_or(Intensity::None);
        f.pointer_chasing = parts.iter().any(|p| p.pointer_chasing);
        for p in parts {
            f.state_objects
                .extend(p.state_objects.iter().map(|o| StateObject {
                    name: format!("{}.{}", p.nf, o.name),
                    ..o.clone()
                }));
            f.split_hazards
                .extend(p.split_hazards.iter().map(|h| SplitHazard {
                    object: format!("{}.{}", p.nf, h.object),
                    ..h.clone()
                }));
            for u in &p.unknown {
                if !f.is_unknown(u.question) {
                    f.unknown.push(Unknown {
                        question: u.question,
                        reason: format!("{}: {}", p.nf, u.reason),
                    });
                }
            }
            f.evidence.extend(p.evidence.iter().cloned());
            for a in &p.accelerators {
                if !f.accelerators.contains(a) {
                    f.accelerators.push(*a);
                }
            }
        }
        f.accelerators.sort();
        f.state_entry_bytes = parts.iter().filter_map(|p| p.state_entry_bytes).max();
        let scale = |c: Option<u64>| c.map(|c| ((c as f64) * cost_ratio).round().max(1.0) as u64);
        let sum = |get: fn(&Facts) -> Option<u64>| {
            parts
                .iter()
                .map(get)
                .try_fold(0u64, |acc, c| Some(acc + c?))
        };
        f.per_packet_cost = scale(sum(|p| p.per_packet_cost));
        f.source_cost = scale(sum(|p| p.source_cost));
        f.confidence = parts.iter().map(|p| p.confidence).fold(1.0, f32::min);
        f.backend = parts.first().map(|p| p.backend).unwrap_or_default();
        f
    }
}

#[cfg(test)]
mod merge_tests {
    use super::*;

    fn keyed(nf: &str, key: &[Field]) -> Facts {
        let mut f = Facts::stateless(nf);
        f.stateful = true;
        f.flow_key = key.to_vec();
        f.intensity = Intensity::PerFlow;
        f
    }

    #[test]
    fn an_unknown_statefulness_leaves_no_dependent_answer_decided() {
        // A blind spot on the packet path: the key, intensity, chasing and
        // symmetry of state nobody knows exists are not "none" or "false".
        let mut f = Facts::stateless("nf");
        f.mark_unknown(Question::Stateful, "macro `LOG` is not expanded");
        for q in [
            Question::Stateful,
            Question::FlowKey,
            Question::Intensity,
            Question::PointerChasing,
            Question::Symmetric,
        ] {
            assert!(f.is_unknown(q), "{q:?}: {f:?}");
        }
        assert!(f.stateful && f.pointer_chasing && f.intensity == Intensity::PerPacket);
        assert!(!f.splittable());
        let why = &f
            .unknown
            .iter()
            .find(|u| u.question == Question::FlowKey)
            .unwrap()
            .reason;
        assert!(why.contains("macro `LOG`"), "{why}");
        // The all-unknown facts keep statefulness first and one reason.
        let u = Facts::unknown("nf", "over budget");
        assert_eq!(u.unknown[0].question, Question::Stateful);
        assert!(u.unknown.iter().all(|x| x.reason == "over budget"));
    }

    #[test]
    fn the_answer_that_permits_less_wins() {
        use Field::*;
        let fw = Facts::stateless("fw");
        let lb = keyed("lb", &[SrcIp, DstIp, SrcPort, DstPort, Proto]);
        let mut psd = keyed("psd", &[SrcIp]);
        psd.intensity = Intensity::PerPacket;
        // A stateless part adds no constraint.
        let m = Facts::merged("fw-lb", &[fw.clone(), lb.clone()], 1.0);
        assert!(m.stateful && m.flow_key == lb.flow_key && m.splittable());
        // Keys intersect; the busiest writer sets the intensity.
        let m = Facts::merged("lb-psd", &[lb.clone(), psd.clone()], 1.0);
        assert_eq!(m.flow_key, [SrcIp]);
        assert_eq!(m.intensity, Intensity::PerPacket);
        // Disjoint keys: global state, never split.
        let m = Facts::merged("x", &[psd, keyed("pol", &[DstIp])], 1.0);
        assert!(m.stateful && m.flow_key.is_empty() && !m.splittable());
        // Nothing stateful: stateless; hazards and unknowns carry over.
        let mut hz = Facts::stateless("log");
        hz.split_hazards.push(SplitHazard {
            object: "n".into(),
            reason: "global counter".into(),
            file: None,
            line: None,
        });
        let m = Facts::merged("y", &[hz, Facts::unknown("u", "no entry")], 0.5);
        assert!(!m.splittable() && m.split_hazards[0].object == "log.n");
        assert!(m.is_unknown(Question::FlowKey) && m.confidence == 0.0);
    }
}
