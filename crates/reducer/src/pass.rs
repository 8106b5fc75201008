//! The reducer's pass trait and the state every pass works on. Passes are
//! plain structs in `passes/` (one per file); `crate::passes::pipeline()`
//! lists them in order. The driver runs them one after another over a single
//! consolidated LLVM module, verifying after each in checked mode and
//! capturing the IR after the pass named by `dump_after`.

use crate::error::ReduceError;
use crate::ReduceOptions;
use inkwell::module::Module;
use inkwell::targets::TargetMachine;
use nfc_core::diag::Diagnostic;
use nfc_core::reduced::Removal;
use std::collections::BTreeMap;

/// What the reducer knows about one NF of the chain.
#[derive(Debug, Clone)]
pub struct NfUnit {
    /// NF instance id from the chain.
    pub id: String,
    /// Prefix its symbols get in the consolidated module (`nf0_`, ...).
    pub prefix: String,
    /// Flattened configuration.
    pub config: Vec<(String, String)>,
    /// nf_state_size() after nf_init.
    pub state_size: u64,
    /// Offset of its state inside the consolidated state instance.
    pub state_offset: u64,
    /// nf_describe()->n_ports.
    pub n_ports: u32,
    /// Bytes of every pointer-free defined global after nf_init ran, keyed by
    /// the original symbol name.
    pub snapshot: BTreeMap<String, Vec<u8>>,
    /// Defined globals whose bytes could not be snapshotted (hold pointers).
    pub pointer_globals: Vec<String>,
    /// Which optional entry points the NF exports.
    pub has_state_init: bool,
    pub has_digest: bool,
    pub has_fini: bool,
    /// Config variables (renamed symbols), filled by the slice pass.
    pub config_globals: Vec<String>,
    /// State variables held in globals (renamed), filled by the slice pass.
    pub state_globals: Vec<String>,
    /// True once config propagation turned this NF's config into constants.
    pub propagated: bool,
    /// Source file names of the NF (for diagnostics).
    pub files: Vec<String>,
    /// Why nf_init was probed through a clang-built object instead of in process.
    pub probe_note: Option<String>,
}

impl NfUnit {
    pub fn renamed(&self, sym: &str) -> String {
        format!("{}{}", self.prefix, sym)
    }
    /// Strip this NF's prefix from a consolidated symbol name.
    pub fn original<'a>(&self, sym: &'a str) -> Option<&'a str> {
        sym.strip_prefix(self.prefix.as_str())
    }
}

/// Everything a pass may read or change.
pub struct PassCtx<'a, 'ctx> {
    pub module: &'a Module<'ctx>,
    pub machine: &'a TargetMachine,
    pub nfs: &'a mut Vec<NfUnit>,
    pub opts: &'a ReduceOptions,
    pub removals: Vec<Removal>,
    pub diags: Vec<Diagnostic>,
    /// Per-NF modules not yet spliced (consumed by the consolidate pass).
    pub pending: std::cell::RefCell<Vec<Module<'ctx>>>,
}

impl PassCtx<'_, '_> {
    /// Record one change (what, where, why).
    pub fn removed(
        &mut self,
        pass: &str,
        nf: &str,
        what: impl Into<String>,
        location: Option<String>,
    ) {
        self.removals.push(Removal {
            pass: pass.to_string(),
            nf: nf.to_string(),
            what: what.into(),
            location,
        });
    }
    /// Record a removal that concerns the consolidated chain as a whole
    /// (reported against `nf1+nf2+...`), at the given debug locations
    /// (sorted, deduplicated; none known -> no location).
    pub fn removed_in_chain(
        &mut self,
        pass: &str,
        what: impl Into<String>,
        locations: impl IntoIterator<Item = Option<String>>,
    ) {
        let chain: Vec<&str> = self.nfs.iter().map(|u| u.id.as_str()).collect();
        let chain = chain.join("+");
        let mut locs: Vec<String> = locations.into_iter().flatten().collect();
        locs.sort();
        locs.dedup();
        let location = (!locs.is_empty()).then(|| locs.join(", "));
        self.removed(pass, &chain, what, location);
    }

    pub fn llvm_module(&self) -> inkwell::llvm_sys::prelude::LLVMModuleRef {
        self.module.as_mut_ptr()
    }
}

/// One transformation over the consolidated module.
pub trait Pass {
    /// Stable name (used by `dump_after`, `skip` and in the removal report).
    fn name(&self) -> &'static str;
    /// Transform the module.
    fn run(&self, cx: &mut PassCtx<'_, '_>) -> Result<(), ReduceError>;
}
