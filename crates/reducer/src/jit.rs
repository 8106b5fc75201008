//! In-process probing of an NF's configuration: JIT-compile the part of the
//! NF that `nf_init` needs (MCJIT, no optimisation), run `nf_init` with the
//! real configuration and read back the globals it wrote — the same facts the
//! clang-built probe object gives, without two compiler processes per NF
//! (the dominant cost of a reduction on this machine).
//!
//! Everything `nf_init`, `nf_describe`, `nf_state_size` cannot reach is
//! stubbed out first, so per-packet code (and its thread-local scratch,
//! which MCJIT cannot place) never reaches the JIT. Any failure here is not
//! an error: the driver falls back to the clang-built probe object.

use crate::analysis::reachable;
use crate::llvm_util::{self, Val};
use crate::native::{call_describe, call_init, DescribeFn, InitFn};
use inkwell::llvm_sys::core as c;
use inkwell::module::Module;
use inkwell::OptimizationLevel;
use std::collections::{BTreeMap, BTreeSet};

/// What probing learnt about one NF.
pub struct Probed {
    pub n_ports: u32,
    pub state_size: u64,
    /// Bytes of each requested global after nf_init.
    pub snapshot: BTreeMap<String, Vec<u8>>,
}

/// Why the in-process probe could not run (the driver then uses clang), or
/// the NF's own nf_init error.
pub enum JitFailure {
    /// The JIT cannot handle this module; use the probe object instead.
    Unsupported(String),
    /// nf_init rejected the configuration.
    Config(String),
    /// nf_describe is missing or broken.
    Abi(String),
}

/// Replace a function's body with `unreachable`.
fn stub(f: Val) {
    unsafe {
        while let Some(bb) = {
            let b = c::LLVMGetFirstBasicBlock(f.0);
            (!b.is_null()).then_some(b)
        } {
            c::LLVMDeleteBasicBlock(bb);
        }
        let ctx = c::LLVMGetTypeContext(c::LLVMTypeOf(f.0));
        let bb = c::LLVMAppendBasicBlockInContext(ctx, f.0, c"stub".as_ptr());
        let b = c::LLVMCreateBuilderInContext(ctx);
        c::LLVMPositionBuilderAtEnd(b, bb);
        c::LLVMBuildUnreachable(b);
        c::LLVMDisposeBuilder(b);
    }
}

/// Run nf_init of `m` (globals already exported) in process and snapshot the
/// globals named in `sizes`.
pub fn probe(
    m: Module<'_>,
    machine: &inkwell::targets::TargetMachine,
    config: &[(String, String)],
    sizes: &BTreeMap<String, u64>,
) -> Result<Probed, JitFailure> {
    let mm = m.as_mut_ptr();
    let roots = ["nf_init", "nf_describe", "nf_state_size"];
    let mut keep = BTreeSet::new();
    for r in roots {
        if let Some(f) = llvm_util::get_function(mm, r) {
            let (set, indirect) = reachable(f);
            if indirect {
                return Err(JitFailure::Unsupported(format!(
                    "`{r}` makes indirect calls"
                )));
            }
            keep.extend(set);
        }
    }
    for f in llvm_util::functions(mm) {
        if !f.is_declaration() && !keep.contains(&f) {
            stub(f);
        }
    }
    for g in llvm_util::globals(mm) {
        if unsafe { c::LLVMIsThreadLocal(g.0) } != 0 && !g.is_declaration() {
            if sizes.contains_key(&g.name()) || !g.users().is_empty() {
                return Err(JitFailure::Unsupported(format!(
                    "thread-local global `{}` is used by nf_init",
                    g.name()
                )));
            }
            g.set_linkage(inkwell::llvm_sys::LLVMLinkage::LLVMInternalLinkage);
        }
    }
    crate::ir::run_pipeline(&m, machine, "globaldce")
        .map_err(|e| JitFailure::Unsupported(e.to_string()))?;
    if llvm_util::globals(mm)
        .iter()
        .any(|g| unsafe { c::LLVMIsThreadLocal(g.0) } != 0)
    {
        return Err(JitFailure::Unsupported(
            "thread-local globals remain".into(),
        ));
    }
    let ee = m
        .create_jit_execution_engine(OptimizationLevel::None)
        .map_err(|e| JitFailure::Unsupported(e.to_string()))?;
    let describe = ee
        .get_function_address("nf_describe")
        .map_err(|e| JitFailure::Abi(format!("nf_describe: {e}")))?;
    // SAFETY: the address is the JIT-compiled nf_describe of this NF.
    let (abi, _) = unsafe { call_describe(std::mem::transmute::<usize, DescribeFn>(describe)) }
        .map_err(JitFailure::Abi)?;
    if abi != 1 {
        return Err(JitFailure::Abi(format!("ABI version {abi} (expected 1)")));
    }
    let init = ee
        .get_function_address("nf_init")
        .map_err(|e| JitFailure::Abi(format!("nf_init: {e}")))?;
    // SAFETY: the address is the JIT-compiled nf_init of this NF.
    unsafe { call_init(std::mem::transmute::<usize, InitFn>(init), config) }
        .map_err(JitFailure::Config)?;
    // The port count may depend on the configuration (a load balancer's
    // backends), so it is read again after nf_init.
    // SAFETY: as above.
    let (_, n_ports) = unsafe { call_describe(std::mem::transmute::<usize, DescribeFn>(describe)) }
        .map_err(JitFailure::Abi)?;
    let state_size = match ee.get_function_address("nf_state_size") {
        // SAFETY: nf.h's signature for nf_state_size.
        Ok(a) => unsafe {
            std::mem::transmute::<usize, unsafe extern "C" fn() -> usize>(a)() as u64
        },
        Err(_) => 0,
    };
    let mut snapshot = BTreeMap::new();
    for (name, &size) in sizes {
        let Ok(cname) = std::ffi::CString::new(name.as_str()) else {
            continue;
        };
        // SAFETY: looks up a global of the engine's module by name.
        let addr = unsafe {
            inkwell::llvm_sys::execution_engine::LLVMGetGlobalValueAddress(
                ee.as_mut_ptr(),
                cname.as_ptr(),
            )
        };
        if addr != 0 {
            // SAFETY: the JIT placed the global of `size` bytes at `addr`.
            let bytes = unsafe { std::slice::from_raw_parts(addr as *const u8, size as usize) };
            snapshot.insert(name.clone(), bytes.to_vec());
        }
    }
    Ok(Probed {
        n_ports,
        state_size,
        snapshot,
    })
}
