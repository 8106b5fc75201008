//! The placer's output: which header fields the NIC hashes (RSS), the
//! Toeplitz key and indirection table that realise it, and per NF whether it
//! runs shared-nothing (one state instance per core) or shared.

use crate::facts::Field;
use serde::{Deserialize, Serialize};

/// How an NF's state is laid out across cores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Sharing {
    /// One state instance per core; correct only when RSS keeps each of the
    /// NF's flows on one core.
    SharedNothing,
    /// One state instance for all cores, synchronised.
    Shared,
    /// The NF keeps no per-flow state; either layout is correct.
    Stateless,
}

/// The placement of one NF.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NfPlacement {
    pub nf: String,
    pub sharing: Sharing,
    /// Cost the solver charged for this NF's choice.
    pub cost: f64,
    /// Why this NF got its mode (e.g. "flow key {src_ip} contains every RSS field").
    pub reason: String,
}

/// RSS configuration for the NIC.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rss {
    /// Hashed fields, sorted.
    pub fields: Vec<Field>,
    /// Whether the hash must map both directions of a connection to one queue.
    pub symmetric: bool,
    /// 40-byte Toeplitz key (most NICs).
    pub key40: Vec<u8>,
    /// 52-byte Toeplitz key (e.g. Intel E810, mlx5).
    pub key52: Vec<u8>,
    /// Redirection table: hash bucket -> queue/core.
    pub reta: Vec<u16>,
}

/// A candidate the solver considered (for `nfc explain`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    pub fields: Vec<Field>,
    pub symmetric: bool,
    pub cost: f64,
    pub shared_nothing: Vec<String>,
    pub shared: Vec<String>,
    /// Set when the candidate is infeasible or rejected, with the reason.
    pub rejected: Option<String>,
}

/// The placer's decision for a chain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub cores: u32,
    pub rss: Rss,
    pub nfs: Vec<NfPlacement>,
    pub total_cost: f64,
    pub candidates: Vec<Candidate>,
    /// Human-readable reasons for the choice, in order.
    pub rationale: Vec<String>,
    /// SmartNIC placement, when the chain targets one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub smartnic: Option<serde_json::Value>,
}
