//! The chain model: `chain.yaml` parsed and validated into a [`ChainSpec`]
//! whose topology is a petgraph DAG of NF instances.
//!
//! Parsing never panics and never stops at the first problem: [`parse_chain`]
//! returns the spec (when one could be built) and every diagnostic it found,
//! each with the YAML location and a hint.

use crate::facts::Field;
use petgraph::graph::{DiGraph, NodeIndex};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

mod parse;
pub mod traffic;
pub use parse::{parse_chain, parse_chain_file, parse_prefix, BuiltinCatalog};
pub use traffic::{SizeMix, TrafficSpec};

/// The id of an NF instance in a chain (unique within the chain).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct NfId(pub String);

impl fmt::Display for NfId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The framework third-party NF source is written against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Framework {
    /// C against `nfs/include/nf.h`.
    NfcC,
    /// Click / FastClick C++ elements.
    Click,
    /// DPDK-style C (rte_hash, rte_mbuf).
    Dpdk,
    /// VPP plugins (vlib nodes).
    Vpp,
}

impl Framework {
    pub const NAMES: [&'static str; 4] = ["nfc-c", "click", "dpdk", "vpp"];
    pub fn name(self) -> &'static str {
        match self {
            Framework::NfcC => "nfc-c",
            Framework::Click => "click",
            Framework::Dpdk => "dpdk",
            Framework::Vpp => "vpp",
        }
    }
    pub fn from_name(s: &str) -> Option<Self> {
        match s {
            "nfc-c" => Some(Framework::NfcC),
            "click" => Some(Framework::Click),
            "dpdk" => Some(Framework::Dpdk),
            "vpp" => Some(Framework::Vpp),
            _ => None,
        }
    }
}

/// Where an NF's code comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NfSource {
    /// A built-in NF from `nfs/<name>/`.
    Builtin { name: String },
    /// User source files or directories (resolved relative to chain.yaml).
    Source {
        paths: Vec<PathBuf>,
        framework: Framework,
    },
}

/// A configuration value as written in chain.yaml (order preserved).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ConfigValue {
    Scalar(String),
    List(Vec<ConfigValue>),
    Map(Vec<(String, ConfigValue)>),
}

impl ConfigValue {
    pub fn empty() -> Self {
        ConfigValue::Map(vec![])
    }

    /// Flatten into the `nf.h` key/value form: nested keys joined with dots,
    /// list items by index, and `<list>.len` for each list's length.
    pub fn flatten(&self) -> Vec<(String, String)> {
        let mut out = vec![];
        flatten_into(self, String::new(), &mut out);
        out
    }

    /// Look up a direct child of a map.
    pub fn get(&self, key: &str) -> Option<&ConfigValue> {
        match self {
            ConfigValue::Map(items) => items.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            ConfigValue::Scalar(s) => Some(s),
            _ => None,
        }
    }
}

fn flatten_into(v: &ConfigValue, prefix: String, out: &mut Vec<(String, String)>) {
    let join = |k: &str| {
        if prefix.is_empty() {
            k.to_string()
        } else {
            format!("{prefix}.{k}")
        }
    };
    match v {
        ConfigValue::Scalar(s) => out.push((prefix, s.clone())),
        ConfigValue::List(items) => {
            out.push((join("len"), items.len().to_string()));
            for (i, item) in items.iter().enumerate() {
                flatten_into(item, join(&i.to_string()), out);
            }
        }
        ConfigValue::Map(items) => {
            for (k, item) in items {
                flatten_into(item, join(k), out);
            }
        }
    }
}

/// One NF instance of the chain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NfInstance {
    pub id: NfId,
    pub source: NfSource,
    pub config: ConfigValue,
    /// Output ports this instance uses (derived from the topology, at least 1).
    pub ports: u32,
    /// Location of the instance in chain.yaml.
    pub span: Option<crate::Span>,
    /// The operator's pin of the NF's state layout (`sharing:` in chain.yaml);
    /// `None` lets the placer decide.
    #[serde(default)]
    pub sharing: Option<crate::plan::Sharing>,
}

/// A link from an output port of one NF to the input of another.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Link {
    pub from_port: u32,
}

/// NIC description.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Nic {
    pub name: String,
    /// Receive queues available.
    pub queues: u32,
    /// Field sets the NIC can hash on (each one an RSS "hash function" choice).
    pub hash_fields: Vec<Vec<Field>>,
    /// Toeplitz key length in bytes the NIC takes (40 or 52).
    pub key_bytes: u32,
    /// RETA size.
    pub reta_size: u32,
    /// How the NIC builds the Toeplitz input for a chosen field set.
    #[serde(default)]
    pub rss_input: RssInput,
    /// Whether the NIC's hash must (or cannot) be symmetric.
    #[serde(default)]
    pub symmetric: SymmetryDemand,
}

/// What the NIC (or the operator) demands of the hash's symmetry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SymmetryDemand {
    /// Symmetric or not, whichever the placer finds cheaper.
    #[default]
    Auto,
    /// Only symmetric keys (e.g. the NIC already runs one for other users).
    Required,
    /// Only plain keys (the NIC cannot load a symmetric key pattern).
    Forbidden,
}

/// How a NIC feeds packet fields to its Toeplitz hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RssInput {
    /// Only the selected fields are hashed (E810, mlx5, DPDK `*_SRC_ONLY`
    /// input sets): every key bit can mix the chosen fields.
    #[default]
    FieldSelect,
    /// The standard src_ip|dst_ip(|ports) tuple is hashed and fields outside
    /// the choice are neutralised by zero key bits (any Toeplitz NIC).
    Tuple,
}

impl Nic {
    /// The usual IPv4/TCP/UDP RSS combinations of commodity NICs.
    pub fn default_hash_fields() -> Vec<Vec<Field>> {
        use Field::*;
        vec![
            vec![SrcIp],
            vec![DstIp],
            vec![SrcIp, DstIp],
            vec![SrcIp, DstIp, Proto],
            vec![SrcIp, DstIp, SrcPort, DstPort],
            vec![SrcIp, DstIp, SrcPort, DstPort, Proto],
        ]
    }
}

impl Default for Nic {
    fn default() -> Self {
        Nic {
            name: "generic".into(),
            queues: 16,
            hash_fields: Nic::default_hash_fields(),
            key_bytes: 40,
            reta_size: 128,
            rss_input: RssInput::FieldSelect,
            symmetric: SymmetryDemand::Auto,
        }
    }
}

/// SmartNIC description (Netronome Agilio-style).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SmartNic {
    pub model: String,
    /// Flow-processing cores available to NFs.
    pub cores: u32,
    /// Overrides of the memory hierarchy's published defaults, by level
    /// (`cls`, `ctm`, `imem`, `emem`; `resources.smartnic.memory`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub memory: BTreeMap<String, MemoryLevelOverride>,
}

/// One level of `resources.smartnic.memory`: what the chain file overrides.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MemoryLevelOverride {
    /// Bytes available to the chain's state at this level.
    pub capacity: Option<u64>,
    /// Access latency in NIC core cycles.
    pub latency: Option<f64>,
}

/// Machine resources the chain may use.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Resources {
    pub cores: u32,
    /// CPUs the chain's NF processes may be pinned to (the flash target
    /// runs NF hosts on them); `None` leaves placement to the kernel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpus: Option<Vec<u32>>,
    pub nic: Nic,
    pub smartnic: Option<SmartNic>,
    /// Location of `resources.nic` in chain.yaml, for placement diagnostics.
    #[serde(skip)]
    pub nic_span: Option<crate::Span>,
}

impl Default for Resources {
    fn default() -> Self {
        Resources {
            cores: 2,
            cpus: None,
            nic: Nic::default(),
            smartnic: None,
            nic_span: None,
        }
    }
}

/// The traffic the chain will see.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Traffic {
    /// A capture file (resolved relative to chain.yaml).
    Pcap { path: PathBuf },
    /// A generated trace.
    Synthetic(TrafficSpec),
}

impl Default for Traffic {
    fn default() -> Self {
        Traffic::Synthetic(TrafficSpec::default())
    }
}

/// Link mode between NFs in the flash target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LinkMode {
    ZeroCopy,
    SingleCopy,
}

/// Per-target options.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct TargetOptions {
    /// FastClick: input and output device names.
    pub fastclick_in: Option<String>,
    pub fastclick_out: Option<String>,
    /// flash: ingress and egress interfaces, and the link mode.
    pub flash_in: Option<String>,
    pub flash_out: Option<String>,
    pub flash_mode: Option<LinkMode>,
}

/// A validated chain.
#[derive(Debug, Clone)]
pub struct ChainSpec {
    pub name: String,
    /// The file it came from (for diagnostics and resolving relative paths).
    pub path: Option<PathBuf>,
    pub nfs: Vec<NfInstance>,
    /// Nodes are indices into `nfs`; edges carry the output port used.
    pub graph: DiGraph<usize, Link>,
    pub resources: Resources,
    pub traffic: Traffic,
    pub targets: TargetOptions,
}

impl ChainSpec {
    pub fn nf(&self, id: &str) -> Option<&NfInstance> {
        self.nfs.iter().find(|n| n.id.0 == id)
    }

    pub fn node_of(&self, idx: usize) -> NodeIndex {
        self.graph
            .node_indices()
            .find(|n| self.graph[*n] == idx)
            .expect("every NF has a node")
    }

    /// NFs in topological order (the graph is acyclic after validation).
    pub fn topo_order(&self) -> Vec<&NfInstance> {
        petgraph::algo::toposort(&self.graph, None)
            .map(|order| {
                order
                    .into_iter()
                    .map(|n| &self.nfs[self.graph[n]])
                    .collect()
            })
            .unwrap_or_else(|_| self.nfs.iter().collect())
    }

    /// NFs with no incoming edge: where packets enter.
    pub fn entries(&self) -> Vec<&NfInstance> {
        self.graph
            .node_indices()
            .filter(|n| {
                self.graph
                    .neighbors_directed(*n, petgraph::Direction::Incoming)
                    .next()
                    .is_none()
            })
            .map(|n| &self.nfs[self.graph[n]])
            .collect()
    }

    /// Successors of an NF: (output port, next NF id).
    pub fn successors(&self, id: &str) -> Vec<(u32, NfId)> {
        let Some(idx) = self.nfs.iter().position(|n| n.id.0 == id) else {
            return vec![];
        };
        let node = self.node_of(idx);
        let mut out: Vec<(u32, NfId)> = self
            .graph
            .edges_directed(node, petgraph::Direction::Outgoing)
            .map(|e| {
                use petgraph::visit::EdgeRef;
                (
                    e.weight().from_port,
                    self.nfs[self.graph[e.target()]].id.clone(),
                )
            })
            .collect();
        out.sort();
        out
    }

    /// Directory relative paths in the chain resolve against.
    pub fn base_dir(&self) -> PathBuf {
        self.path
            .as_ref()
            .and_then(|p| p.parent())
            .map(|p| {
                if p.as_os_str().is_empty() {
                    PathBuf::from(".")
                } else {
                    p.to_path_buf()
                }
            })
            .unwrap_or_else(|| PathBuf::from("."))
    }
}

/// A plain-data dump of a chain spec (the graph as an edge list), for
/// `--emit` and snapshots.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChainDump {
    pub name: String,
    pub nfs: Vec<NfInstance>,
    pub edges: Vec<(String, u32, String)>,
    pub resources: Resources,
    pub traffic: Traffic,
    pub targets: TargetOptions,
}

impl ChainSpec {
    pub fn dump(&self) -> ChainDump {
        use petgraph::visit::EdgeRef;
        let mut edges: Vec<(String, u32, String)> = self
            .graph
            .edge_references()
            .map(|e| {
                (
                    self.nfs[self.graph[e.source()]].id.0.clone(),
                    e.weight().from_port,
                    self.nfs[self.graph[e.target()]].id.0.clone(),
                )
            })
            .collect();
        edges.sort();
        ChainDump {
            name: self.name.clone(),
            nfs: self
                .nfs
                .iter()
                .map(|n| NfInstance {
                    span: None,
                    ..n.clone()
                })
                .collect(),
            edges,
            resources: Resources {
                nic_span: None,
                ..self.resources.clone()
            },
            traffic: self.traffic.clone(),
            targets: self.targets.clone(),
        }
    }
}
