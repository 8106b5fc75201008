//! Summary of the reducer's output that crosses the crate boundary: where the
//! reduced artefacts are and what was removed. The LLVM modules themselves
//! stay inside the reducer.

use serde::{Deserialize, Serialize};

/// One change the reducer made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Removal {
    /// Pass that made the change (e.g. "unused-logic").
    pub pass: String,
    /// NF whose code changed.
    pub nf: String,
    /// What was removed or rewritten, and why.
    pub what: String,
    /// Source location when debug info has one.
    pub location: Option<String>,
}

/// The reduced chain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReducedChain {
    /// NFs (by id) consolidated into each reduced module.
    pub modules: Vec<ReducedModule>,
    pub removals: Vec<Removal>,
    /// Wall time the reduction took.
    pub millis: u64,
}

/// One reduced module and its artefacts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReducedModule {
    pub nfs: Vec<String>,
    pub ll_path: Option<String>,
    pub so_path: Option<String>,
    pub ir_instructions_before: u64,
    pub ir_instructions_after: u64,
}
