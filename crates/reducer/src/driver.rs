//! The reduction driver: inputs → probe → pipeline → artefacts → proof by
//! execution, and the `best_effort` fallback around all of it.

use crate::error::ReduceError;
use crate::jit::{self, JitFailure};
use crate::llvm_util;
use crate::native::LoadedNf;
use crate::pass::{NfUnit, PassCtx};
use crate::{
    ir, packets, passes, verify, ReduceInput, ReduceOptions, ReduceTimings, ReducedArtifacts,
};
use inkwell::context::Context;
use nfc_core::diag::{Diagnostic, Span};
use nfc_core::reduced::{ReducedChain, ReducedModule, Removal};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Reduce a chain of NFs into one specialised, consolidated NF.
pub fn reduce(
    nfs: &[ReduceInput],
    opts: &ReduceOptions,
) -> Result<(ReducedArtifacts, ReducedChain, Vec<Diagnostic>), ReduceError> {
    let started = Instant::now();
    if nfs.is_empty() {
        return Err(ReduceError::EmptyChain);
    }
    std::fs::create_dir_all(&opts.out_dir)
        .map_err(|e| ReduceError::io("cannot create output directory", &opts.out_dir, e))?;
    // Inputs: IR and the unreduced shared objects, one thread per NF (each
    // is two clang runs). NFs built from the same sources (e.g. two instances
    // of one firewall) are compiled once. Failing here is fatal even in
    // best-effort mode: there is no chain to fall back to.
    let t_compile = Instant::now();
    for k in 0..nfs.len() {
        let dir = opts.out_dir.join(format!("nf{k}"));
        std::fs::create_dir_all(&dir)
            .map_err(|e| ReduceError::io("cannot create directory", &dir, e))?;
    }
    let first_with_same_sources = |k: usize| {
        (0..k).find(|&j| {
            nfs[k].ll.is_none()
                && nfs[j].ll.is_none()
                && nfs[j].so_path.is_none() == nfs[k].so_path.is_none()
                && !nfs[k].sources.is_empty()
                && nfs[j].sources == nfs[k].sources
        })
    };
    type Built = (Vec<PathBuf>, PathBuf, Option<ir::PendingCompile>);
    let built: Vec<Result<Built, ReduceError>> = std::thread::scope(|s| {
        let handles: Vec<_> = nfs
            .iter()
            .enumerate()
            .map(|(k, input)| {
                let dup = first_with_same_sources(k);
                s.spawn(move || {
                    if dup.is_some() {
                        return Ok((vec![], PathBuf::new(), None));
                    }
                    compile_inputs(opts, input, &opts.out_dir.join(format!("nf{k}")))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(ReduceError::Compile {
                        nf: "chain".into(),
                        message: "compiler thread panicked".into(),
                    })
                })
            })
            .collect()
    });
    let mut lls: Vec<Vec<PathBuf>> = vec![];
    let mut sos: Vec<PathBuf> = vec![];
    let mut pending = vec![];
    let mut first_err = None;
    let mut results = vec![];
    for b in built {
        match b {
            Ok((ll, so, p)) => {
                pending.extend(p);
                results.push((ll, so));
            }
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
    }
    if let Some(e) = first_err {
        for p in pending {
            let _ = p.finish();
        }
        return Err(e);
    }
    for (k, (ll, so)) in results.into_iter().enumerate() {
        match first_with_same_sources(k) {
            Some(j) => {
                lls.push(lls[j].clone());
                sos.push(match &nfs[k].so_path {
                    Some(so) => so.clone(),
                    None => sos[j].clone(),
                });
            }
            None => {
                lls.push(ll);
                sos.push(so);
            }
        }
    }
    let compile_ms = t_compile.elapsed().as_millis() as u64;
    // The unreduced objects must exist before anything returns them.
    let wait_originals = |pending: Vec<ir::PendingCompile>| -> Result<(), ReduceError> {
        let mut res = Ok(());
        for p in pending {
            if let Err(e) = p.finish() {
                if res.is_ok() {
                    res = Err(e);
                }
            }
        }
        res
    };
    let mut pending = Some(pending);
    let inner = reduce_inner(nfs, opts, &lls, &sos, started, compile_ms, &mut || {
        wait_originals(pending.take().unwrap_or_default())
    });
    if let Some(p) = pending.take() {
        wait_originals(p)?;
    }
    match inner {
        Ok(r) => Ok(r),
        Err(e) if opts.best_effort => {
            let diag = Diagnostic::error("R0001", format!("chain not reduced: {e}")).with_hint(
                "the unreduced NFs are used instead; fix the cause or report the construct",
            );
            let report_path = opts.out_dir.join(format!("{}.report.json", opts.name));
            let chain = ReducedChain {
                modules: nfs
                    .iter()
                    .zip(&sos)
                    .map(|(n, so)| ReducedModule {
                        nfs: vec![n.id.clone()],
                        ll_path: None,
                        so_path: Some(so.display().to_string()),
                        ir_instructions_before: 0,
                        ir_instructions_after: 0,
                    })
                    .collect(),
                removals: vec![],
                millis: started.elapsed().as_millis() as u64,
            };
            let report = serde_json::json!({ "chain": chain, "diagnostics": [diag.clone()], "fell_back": true });
            write(
                &report_path,
                serde_json::to_string_pretty(&report)
                    .unwrap_or_default()
                    .as_bytes(),
            )?;
            let art = ReducedArtifacts {
                ll_path: None,
                so_path: None,
                report_path,
                original_sos: sos,
                dump: None,
                verification: None,
                fell_back: true,
                timings: ReduceTimings {
                    compile_ms,
                    total_ms: started.elapsed().as_millis() as u64,
                    ..Default::default()
                },
            };
            Ok((art, chain, vec![diag]))
        }
        Err(e) => Err(e),
    }
}

/// IR and the unreduced shared object of one NF (compiled, or as given).
/// The C-to-.so compile, when there is one, is returned still running.
fn compile_inputs(
    opts: &ReduceOptions,
    input: &ReduceInput,
    dir: &Path,
) -> Result<(Vec<PathBuf>, PathBuf, Option<ir::PendingCompile>), ReduceError> {
    let mut pending = None;
    let ll = match (&input.ll, input.sources.is_empty()) {
        (Some(ll), _) => vec![ll.clone()],
        (None, false) => ir::compile_c_to_ll(
            &opts.clang,
            &input.id,
            &input.sources,
            &opts.include_dirs,
            dir,
        )?,
        (None, true) => {
            return Err(ReduceError::NoInput {
                nf: input.id.clone(),
            })
        }
    };
    let so = match &input.so_path {
        Some(so) => so.clone(),
        None => {
            let so = dir.join(format!("{}.orig.so", sanitize(&input.id)));
            if input.sources.is_empty() {
                ir::compile_so(&opts.clang, &input.id, &ll[0], &so, 2)?;
            } else {
                pending = Some(ir::spawn_c_to_so(
                    &opts.clang,
                    &input.id,
                    &input.sources,
                    &opts.include_dirs,
                    &so,
                )?);
            }
            so
        }
    };
    Ok((ll, so, pending))
}

/// Run LLVM's verifier on the chain module. LLVM 19's passes occasionally
/// leave debug records where the verifier rejects them (e.g. on a phi); the
/// code itself is fine when the module verifies without debug info, so that
/// case drops the debug info with a note instead of failing.
fn verify_or_strip_debug(
    module: &inkwell::module::Module<'_>,
    stage: &str,
    diags: &mut Vec<Diagnostic>,
) -> Result<(), ReduceError> {
    if let Err(e) = ir::verify(module, "chain", stage) {
        module.strip_debug_info();
        if module.verify().is_ok() {
            diags.push(Diagnostic::note_diag(
                "R0105",
                format!("debug info dropped ({stage}): {e}"),
            ));
        } else {
            return Err(e);
        }
    }
    Ok(())
}

fn sanitize(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), ReduceError> {
    std::fs::write(path, bytes).map_err(|e| ReduceError::io("cannot write", path, e))
}

/// Compile one NF's IR on its own with every internal global exported, load
/// it, run nf_init with the configuration and snapshot the globals.
fn probe(
    opts: &ReduceOptions,
    input: &ReduceInput,
    lls: &[PathBuf],
    k: usize,
) -> Result<NfUnit, ReduceError> {
    let ctx = Context::create();
    let m = ir::load_module(&ctx, &input.id, lls)?;
    let mut sizes = BTreeMap::new();
    let mut pointer_globals = vec![];
    let mm = m.as_mut_ptr();
    for g in llvm_util::globals(mm) {
        if g.is_declaration() || g.is_global_constant() || g.name().starts_with("llvm.") {
            continue;
        }
        let name = g.name();
        // Exported for dlsym; protected so IR compiled without -fPIC (dso_local
        // globals) still links into the probe object.
        g.set_linkage(inkwell::llvm_sys::LLVMLinkage::LLVMExternalLinkage);
        unsafe {
            inkwell::llvm_sys::core::LLVMSetVisibility(
                g.0,
                inkwell::llvm_sys::LLVMVisibility::LLVMProtectedVisibility,
            )
        };
        let ty = g.global_value_type();
        if llvm_util::type_has_pointer(ty) {
            pointer_globals.push(name);
        } else {
            sizes.insert(name, llvm_util::type_store_size(mm, ty));
        }
    }
    let has = |f: &str| {
        m.get_function(f)
            .map(|f| f.count_basic_blocks() > 0)
            .unwrap_or(false)
    };
    let (has_state_init, has_digest, has_fini) =
        (has("nf_state_init"), has("nf_state_digest"), has("nf_fini"));
    let mut probe_note = None;
    let probed = if opts.probe_in_process {
        let machine = ir::host_machine()?;
        match jit::probe(m.clone(), &machine, &input.config, &sizes) {
            Ok(p) => Some(p),
            Err(JitFailure::Config(message)) => {
                return Err(ReduceError::Config {
                    nf: input.id.clone(),
                    message,
                })
            }
            Err(JitFailure::Abi(message)) => {
                return Err(ReduceError::Abi {
                    nf: input.id.clone(),
                    message,
                })
            }
            Err(JitFailure::Unsupported(why)) => {
                probe_note = Some(why);
                None
            }
        }
    } else {
        None
    };
    let probed = match probed {
        Some(p) => p,
        None => probe_with_clang(opts, input, &m, &sizes)?,
    };
    let (n_ports, state_size, snapshot) = (probed.n_ports, probed.state_size, probed.snapshot);
    Ok(NfUnit {
        id: input.id.clone(),
        prefix: format!("nf{k}_"),
        config: input.config.clone(),
        state_size,
        state_offset: 0,
        n_ports,
        snapshot,
        pointer_globals,
        has_state_init,
        has_digest,
        has_fini,
        config_globals: vec![],
        state_globals: vec![],
        propagated: false,
        files: input
            .sources
            .iter()
            .map(|s| s.display().to_string())
            .chain(input.ll.iter().map(|l| l.display().to_string()))
            .collect(),
        probe_note,
    })
}

/// The probe as a clang-built object: every internal global exported, loaded
/// with dlopen (used when the in-process JIT cannot take the module).
fn probe_with_clang(
    opts: &ReduceOptions,
    input: &ReduceInput,
    m: &inkwell::module::Module<'_>,
    sizes: &BTreeMap<String, u64>,
) -> Result<jit::Probed, ReduceError> {
    let dir = tempfile::tempdir()
        .map_err(|e| ReduceError::io("cannot create temp dir", std::env::temp_dir(), e))?;
    let probe_ll = dir.path().join("probe.ll");
    m.print_to_file(&probe_ll).map_err(|e| ReduceError::Abi {
        nf: input.id.clone(),
        message: e.to_string(),
    })?;
    let probe_so = dir.path().join("probe.so");
    ir::compile_so(&opts.clang, &input.id, &probe_ll, &probe_so, 0)?;
    let nf = LoadedNf::open(&probe_so).map_err(|message| ReduceError::Load {
        path: probe_so.clone(),
        message,
    })?;
    nf.describe().map_err(|message| ReduceError::Abi {
        nf: input.id.clone(),
        message,
    })?;
    nf.init(&input.config)
        .map_err(|message| ReduceError::Config {
            nf: input.id.clone(),
            message,
        })?;
    // The port count may depend on the configuration: read it after nf_init.
    let (_, n_ports) = nf.describe().map_err(|message| ReduceError::Abi {
        nf: input.id.clone(),
        message,
    })?;
    let mut snapshot = BTreeMap::new();
    for (name, &size) in sizes {
        if let Some(addr) = nf.symbol_address(name) {
            // SAFETY: the symbol is a defined global of `size` bytes in the loaded object.
            let bytes = unsafe { std::slice::from_raw_parts(addr, size as usize) }.to_vec();
            snapshot.insert(name.clone(), bytes);
        }
    }
    Ok(jit::Probed {
        n_ports,
        state_size: nf.state_size() as u64,
        snapshot,
    })
}

fn reduce_inner(
    nfs: &[ReduceInput],
    opts: &ReduceOptions,
    lls: &[Vec<PathBuf>],
    sos: &[PathBuf],
    started: Instant,
    compile_ms: u64,
    wait_originals: &mut dyn FnMut() -> Result<(), ReduceError>,
) -> Result<(ReducedArtifacts, ReducedChain, Vec<Diagnostic>), ReduceError> {
    let pipeline = passes::pipeline();
    if let Some(d) = &opts.dump_after {
        if !pipeline.iter().any(|p| p.name() == d) {
            return Err(ReduceError::UnknownPass(d.clone()));
        }
    }
    // Probes are independent (own LLVM context, own loaded object): one thread per NF.
    let t_probe = Instant::now();
    let probed: Vec<Result<NfUnit, ReduceError>> = std::thread::scope(|s| {
        let handles: Vec<_> = nfs
            .iter()
            .enumerate()
            .map(|(k, input)| s.spawn(move || probe(opts, input, &lls[k], k)))
            .collect();
        handles
            .into_iter()
            .zip(nfs)
            .map(|(h, input)| {
                h.join().unwrap_or_else(|_| {
                    Err(ReduceError::Abi {
                        nf: input.id.clone(),
                        message: "probing nf_init crashed".into(),
                    })
                })
            })
            .collect()
    });
    let mut units = vec![];
    for u in probed {
        units.push(u?);
    }
    let probe_ms = t_probe.elapsed().as_millis() as u64;
    let probe_notes: Vec<Diagnostic> = units
        .iter()
        .filter_map(|u| {
            u.probe_note.as_ref().map(|why| {
                Diagnostic::note_diag(
                    "R0107",
                    format!(
                        "NF `{}`: nf_init probed through a compiled object, not in process: {why}",
                        u.id
                    ),
                )
            })
        })
        .collect();
    let t_passes = Instant::now();
    let ctx = Context::create();
    let mut pending = vec![];
    let mut before = 0;
    for (k, input) in nfs.iter().enumerate() {
        let m = ir::load_module(&ctx, &input.id, &lls[k])?;
        before += llvm_util::count_instructions(m.as_mut_ptr());
        pending.push(m);
    }
    let module = ctx.create_module("nfc_chain");
    let machine = ir::host_machine()?;
    let mut cx = PassCtx {
        module: &module,
        machine: &machine,
        nfs: &mut units,
        opts,
        removals: vec![],
        diags: probe_notes,
        pending: std::cell::RefCell::new(pending),
    };
    let mut dump = None;
    for pass in &pipeline {
        if opts.skip.iter().any(|s| s == pass.name()) {
            continue;
        }
        pass.run(&mut cx)?;
        if opts.verify_each_pass {
            verify_or_strip_debug(
                &module,
                &format!("the IR after pass `{}`", pass.name()),
                &mut cx.diags,
            )?;
        }
        if opts.dump_after.as_deref() == Some(pass.name()) {
            dump = Some(module.print_to_string().to_string());
        }
    }
    verify_or_strip_debug(&module, "the reduced IR", &mut cx.diags)?;
    let passes_ms = t_passes.elapsed().as_millis() as u64;
    let t_codegen = Instant::now();
    let after = llvm_util::count_instructions(module.as_mut_ptr());
    let ll_path = opts.out_dir.join(format!("{}.ll", opts.name));
    module
        .print_to_file(&ll_path)
        .map_err(|e| ReduceError::Abi {
            nf: "chain".into(),
            message: format!("cannot write IR: {e}"),
        })?;
    let so_path = opts.out_dir.join(format!("{}.so", opts.name));
    ir::module_to_so(&module, &machine, &opts.clang, "chain", &so_path)?;
    let removals: Vec<Removal> = std::mem::take(&mut cx.removals);
    let mut diags = std::mem::take(&mut cx.diags);

    let codegen_ms = t_codegen.elapsed().as_millis() as u64;
    // The unreduced objects were compiled in the background meanwhile.
    let t_wait = Instant::now();
    wait_originals()?;
    // Time blocked on the background compile counts as compile time.
    let compile_ms = compile_ms + t_wait.elapsed().as_millis() as u64;
    let t_verify = Instant::now();
    // Proof by execution.
    let mut verification = None;
    if opts.verify_packets > 0 {
        let cfgs: Vec<&[(String, String)]> = nfs.iter().map(|n| n.config.as_slice()).collect();
        let pools = packets::pools_from_config(&cfgs);
        let pkts = packets::generate(&pools, opts.verify_packets, opts.seed);
        let originals: Vec<verify::OriginalNf> = nfs
            .iter()
            .zip(sos)
            .map(|(n, so)| (n.id.clone(), so.clone(), n.config.clone()))
            .collect();
        let a = verify::run_original(&originals, &pkts)?;
        let b = verify::run_reduced(&so_path, nfs.len(), &pkts)?;
        let ids: Vec<String> = nfs.iter().map(|n| n.id.clone()).collect();
        let rep = verify::compare(&a, &b, &pkts, &ids)?;
        diags.push(Diagnostic::note_diag(
            "R0200",
            format!("reduced chain matches the original on {} packets ({} dropped, {} forwarded) and final state", rep.packets, rep.dropped, rep.forwarded),
        ));
        verification = Some(rep);
    }
    let verify_ms = t_verify.elapsed().as_millis() as u64;
    diags.push(Diagnostic::note_diag(
        "R0201",
        format!(
            "timing: compile {compile_ms} ms (not overlapped with later phases), probe (nf_init) {probe_ms} ms, passes {passes_ms} ms, code generation {codegen_ms} ms, differential check {verify_ms} ms"
        ),
    ));
    for d in diags.iter_mut() {
        if d.span.is_none() {
            if let Some(f) = nfs
                .iter()
                .find(|n| d.message.contains(&format!("`{}`", n.id)))
                .and_then(|n| n.sources.first())
            {
                *d = d
                    .clone()
                    .with_span(Span::file_only(f.display().to_string()));
            }
        }
    }
    let chain = ReducedChain {
        modules: vec![ReducedModule {
            nfs: nfs.iter().map(|n| n.id.clone()).collect(),
            ll_path: Some(ll_path.display().to_string()),
            so_path: Some(so_path.display().to_string()),
            ir_instructions_before: before,
            ir_instructions_after: after,
        }],
        removals,
        millis: started.elapsed().as_millis() as u64,
    };
    let report_path = opts.out_dir.join(format!("{}.report.json", opts.name));
    let report = serde_json::json!({ "chain": chain, "diagnostics": diags, "verification": verification, "fell_back": false });
    write(
        &report_path,
        serde_json::to_string_pretty(&report)
            .unwrap_or_default()
            .as_bytes(),
    )?;
    let art = ReducedArtifacts {
        ll_path: Some(ll_path),
        so_path: Some(so_path),
        report_path,
        original_sos: sos.to_vec(),
        dump,
        verification,
        fell_back: false,
        timings: ReduceTimings {
            compile_ms,
            probe_ms,
            passes_ms,
            codegen_ms,
            verify_ms,
            total_ms: started.elapsed().as_millis() as u64,
        },
    };
    Ok((art, chain, diags))
}
