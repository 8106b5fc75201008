//! `nfc-reducer` specialises NFs to their configured rules and removes
//! unused, duplicated and overwritten logic across a chain (NFReducer), on
//! LLVM 19 IR through inkwell.
//!
//! Entry point: [`reduce`]. It compiles (or loads) each NF's IR, probes each
//! NF's `nf_init` with the real configuration, splices the chain into one
//! run-to-completion module, runs the pass pipeline in [`passes::pipeline`]
//! (verifying the IR after every pass when asked), writes the reduced `.ll`,
//! a `.so` built from it and a JSON report of every removal, and then proves
//! the result by running the original chain and the reduced module over the
//! same generated packets ([`verify`]): a difference fails the build.

pub mod access_profile;
mod analysis;
mod driver;
pub mod error;
pub mod insight_exec;
pub mod insight_ir;
mod ir;
mod jit;
mod llvm_util;
mod native;
mod offsets;
pub mod packets;
mod pass;
mod passes;
#[cfg(test)]
mod testutil;
pub mod verify;

pub use driver::reduce;

/// Names of the pipeline's passes, in order (valid values for `dump_after`
/// and `skip`). No LLVM type leaves this crate; only names and plain data.
pub fn pass_names() -> Vec<&'static str> {
    passes::pipeline().iter().map(|p| p.name()).collect()
}
pub use error::ReduceError;
pub use verify::VerifyReport;

use std::path::PathBuf;

/// One NF of the chain, in chain order.
#[derive(Debug, Clone, Default)]
pub struct ReduceInput {
    /// NF instance id (used in symbol prefixes' reports and diagnostics).
    pub id: String,
    /// C sources of the NF (compiled with clang-19), or empty when `ll` is given.
    pub sources: Vec<PathBuf>,
    /// Textual LLVM IR of the NF, used instead of `sources` when set.
    pub ll: Option<PathBuf>,
    /// Flattened configuration (`ConfigValue::flatten()`).
    pub config: Vec<(String, String)>,
    /// The NF's unreduced shared object; built from sources/IR when absent.
    pub so_path: Option<PathBuf>,
}

/// How to reduce.
#[derive(Debug, Clone)]
pub struct ReduceOptions {
    /// Where the `.ll`, `.so` and report go (default `nfc-reduced`, relative to the working directory).
    pub out_dir: PathBuf,
    /// Base name of the artefacts (default `reduced`).
    pub name: String,
    /// Return the IR text right after the pass with this name.
    pub dump_after: Option<String>,
    /// Remove output-only logic (printf, syslog...) found by the slice.
    pub strip_observability: bool,
    /// On failure, return the chain unreduced with diagnostics instead of an error.
    pub best_effort: bool,
    /// Run LLVM's verifier after every pass.
    pub verify_each_pass: bool,
    /// Packets in the differential check (0 disables it; tests never do).
    pub verify_packets: usize,
    /// Seed of the generated packets.
    pub seed: u64,
    /// Pass names to skip (for measuring spliced / consolidated-only variants).
    pub skip: Vec<String>,
    /// The clang binary (default `clang-19`).
    pub clang: PathBuf,
    /// Include directories for NF sources (default: the workspace's `nfs/include`).
    pub include_dirs: Vec<PathBuf>,
    /// Run each NF's nf_init in process through LLVM's JIT (default); when
    /// false, or when the JIT cannot take the module, a clang-built probe
    /// object is loaded instead.
    pub probe_in_process: bool,
}

impl Default for ReduceOptions {
    fn default() -> Self {
        ReduceOptions {
            out_dir: PathBuf::from("nfc-reduced"),
            name: "reduced".into(),
            dump_after: None,
            strip_observability: false,
            best_effort: false,
            verify_each_pass: true,
            verify_packets: 3000,
            seed: 0x5eed,
            skip: vec![],
            clang: PathBuf::from("clang-19"),
            include_dirs: vec![PathBuf::from(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../nfs/include"
            ))],
            probe_in_process: true,
        }
    }
}

/// Files the reduction produced.
#[derive(Debug, Clone)]
pub struct ReducedArtifacts {
    /// Reduced IR (absent when `best_effort` fell back).
    pub ll_path: Option<PathBuf>,
    /// Shared object built from the reduced IR (nf.h ABI, one NF for the chain).
    pub so_path: Option<PathBuf>,
    /// JSON report: removals, diagnostics, verification.
    pub report_path: PathBuf,
    /// The unreduced shared object of each NF, in chain order.
    pub original_sos: Vec<PathBuf>,
    /// IR text after the pass named in `dump_after`.
    pub dump: Option<String>,
    /// Outcome of the differential check.
    pub verification: Option<VerifyReport>,
    /// True when `best_effort` returned the chain unreduced.
    pub fell_back: bool,
    /// Wall time of each phase of this reduction.
    pub timings: ReduceTimings,
}

/// Wall time of each phase of one reduction, in milliseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct ReduceTimings {
    /// clang-19 time not overlapped with other phases: each NF's IR (NFs in
    /// parallel), plus any wait for the unreduced shared objects, which
    /// compile in the background until the differential check needs them.
    pub compile_ms: u64,
    /// Loading each NF alone and running its nf_init on the configuration.
    pub probe_ms: u64,
    /// The pass pipeline (with the verifier after each pass when asked).
    pub passes_ms: u64,
    /// Writing the reduced IR and building its shared object.
    pub codegen_ms: u64,
    /// The differential check (original vs reduced over generated packets).
    pub verify_ms: u64,
    /// The whole reduction.
    pub total_ms: u64,
}
