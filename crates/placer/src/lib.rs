//! `nfc-placer` chooses how a chain runs on a multi-core machine: which header
//! fields the NIC hashes, the Toeplitz key and indirection table realising that
//! choice, and which NFs keep per-core (shared-nothing) or shared state. It
//! follows FlowMage §3.2 (minimise the chain's cost over the NIC's RSS field
//! sets; break ties by code complexity, CCE) with a richer cost (write
//! intensity, state size, pointer chasing, per-packet work, load imbalance of
//! the real traffic under the real key), solves it as an ILP with
//! good_lp/HiGHS, synthesises the key as Maestro does, and checks the result.
//!
//! Entry point: [`place`]. Modules: [`toeplitz`] (key synthesis and hashing),
//! [`traffic`] (the profile), [`cost`] (the model), [`solve`] (ILP and the
//! brute-force oracle), [`semantics`] (the shared-nothing check),
//! [`explain()`] (human text), [`fastclick`] (the FastClick target) and
//! [`smartnic`] (state placement in an Agilio NIC's memory hierarchy).

pub mod cost;
pub mod explain;
pub mod fastclick;
pub mod model;
pub mod semantics;
pub mod smartnic;
pub mod solve;
pub mod toeplitz;
pub mod traffic;

pub use cost::CostModel;
pub use explain::explain;
pub use model::{build_problem, facts_for_chain, place, Model};
pub use toeplitz::RssInputMode;
pub use traffic::{FlowRecord, PacketHeader, TrafficProfile};

use nfc_core::facts::Facts;
use nfc_core::plan::Sharing;
use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

/// Compares the per-packet processing of two NFs (FlowMage's CCE step, e.g.
/// answered by an LLM). `Greater` means `a` needs more processing than `b`.
pub trait ComplexityComparator: Send + Sync {
    fn compare(&self, a: &Facts, b: &Facts) -> Ordering;
}

impl<F: Fn(&Facts, &Facts) -> Ordering + Send + Sync> ComplexityComparator for F {
    fn compare(&self, a: &Facts, b: &Facts) -> Ordering {
        self(a, b)
    }
}

/// Which hashes the placer may use with respect to symmetry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SymmetryPolicy {
    /// Consider symmetric and plain hashes, pick by cost.
    #[default]
    Auto,
    /// Only symmetric hashes (e.g. the operator's NIC runs one already).
    Require,
    /// Only plain hashes (the NIC cannot take a custom key symmetric pattern).
    Forbid,
}

/// Options of [`place`].
#[derive(Clone)]
pub struct PlaceOptions {
    pub cost_model: CostModel,
    /// How the NIC builds the Toeplitz input.
    pub rss_input: RssInputMode,
    pub symmetry: SymmetryPolicy,
    /// Operator pins: NF id -> required sharing mode (`Stateless` is ignored).
    pub pins: Vec<(String, Sharing)>,
    /// Relative cost difference under which plans tie (then CCE decides).
    pub tie_tolerance: f64,
    /// Pairwise complexity comparator for ties; `None` ranks by `Facts::cost()`.
    pub comparator: Option<Arc<dyn ComplexityComparator>>,
}

impl Default for PlaceOptions {
    fn default() -> Self {
        PlaceOptions {
            cost_model: CostModel::default(),
            rss_input: RssInputMode::default(),
            symmetry: SymmetryPolicy::default(),
            pins: vec![],
            tie_tolerance: 1e-6,
            comparator: None,
        }
    }
}

impl fmt::Debug for PlaceOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PlaceOptions")
            .field("cost_model", &self.cost_model)
            .field("rss_input", &self.rss_input)
            .field("symmetry", &self.symmetry)
            .field("pins", &self.pins)
            .field("tie_tolerance", &self.tie_tolerance)
            .field(
                "comparator",
                &self.comparator.as_ref().map(|_| "<comparator>"),
            )
            .finish()
    }
}

/// Why placement failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PlaceError {
    /// The chain has no NF to place.
    #[error("the chain has no NFs to place")]
    EmptyChain,
    /// Zero cores (or a NIC with zero queues) were given.
    #[error("no cores to place on (cores = {cores}, NIC queues = {queues})")]
    NoCores { cores: u32, queues: u32 },
    /// Two NFs share an id.
    #[error("NF id `{0}` appears twice")]
    DuplicateNf(String),
    /// NFs of the chain have no facts (the analyzer did not run on them).
    #[error("no facts for NF(s) {}", .nfs.join(", "))]
    MissingFacts { nfs: Vec<String> },
    /// A pin names an NF that is not in the chain.
    #[error("pinned NF `{0}` is not in the chain")]
    UnknownPin(String),
    /// None of the NIC's field sets yields a usable hash.
    #[error("the NIC `{nic}` offers no usable RSS field set: {}", .reasons.join("; "))]
    NoUsableFieldSet { nic: String, reasons: Vec<String> },
    /// The symmetry policy and the chain's demands cannot both hold.
    #[error("conflicting symmetry demands: {0}")]
    ConflictingSymmetry(String),
    /// The pinned shared-nothing NFs cannot all be shared-nothing under any hash.
    #[error("no RSS hash keeps {} shared-nothing together: {}", .pinned.join(", "), .detail.join("; "))]
    Infeasible {
        pinned: Vec<String>,
        detail: Vec<String>,
    },
    /// A plan marked an NF shared-nothing whose flows could reach two cores.
    #[error("semantics check failed for NF `{nf}`: {detail}")]
    SemanticViolation { nf: String, detail: String },
    /// The ILP solver failed (an internal error).
    #[error("solver failure: {0}")]
    Solver(String),
    /// The brute-force oracle was given more NFs than it enumerates.
    #[error("brute force enumerates at most 20 stateful NFs, got {nfs}")]
    TooLargeForBruteForce { nfs: usize },
    /// A SmartNIC state object is larger than every memory level.
    #[error("state object `{object}` ({bytes} bytes) fits in no SmartNIC memory level")]
    StateDoesNotFit { object: String, bytes: u64 },
    /// The SmartNIC state objects together exceed the memory levels' capacities.
    #[error("the state objects do not fit in the SmartNIC memory levels together")]
    StateInfeasible,
}
