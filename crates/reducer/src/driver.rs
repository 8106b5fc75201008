//! The reduction driver: inputs → probe → pipeline → artefacts → proof by
//! execution, and the `best_effort` fallback around all of it.

use crate::error::ReduceError;
use crate::llvm_util;
use crate::native::LoadedNf;
use crate::pass::{NfUnit, PassCtx};
use crate::{ir, packets, passes, verify, ReduceInput, ReduceOptions, ReducedArtifacts};
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
    // Inputs: IR and the unreduced shared objects. Failing here is fatal even
    // in best-effort mode: there is no chain to fall back to.
    let mut lls = vec![];
    let mut sos = vec![];
    for (k, input) in nfs.iter().enumerate() {
        let dir = opts.out_dir.join(format!("nf{k}"));
        std::fs::create_dir_all(&dir)
            .map_err(|e| ReduceError::io("cannot create directory", &dir, e))?;
        let ll = match (&input.ll, input.sources.is_empty()) {
            (Some(ll), _) => vec![ll.clone()],
            (None, false) => ir::compile_c_to_ll(
                &opts.clang,
                &input.id,
                &input.sources,
                &opts.include_dirs,
                &dir,
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
                    ir::compile_c_to_so(
                        &opts.clang,
                        &input.id,
                        &input.sources,
                        &opts.include_dirs,
                        &so,
                    )?;
                }
                so
            }
        };
        lls.push(ll);
        sos.push(so);
    }
    match reduce_inner(nfs, opts, &lls, &sos, started) {
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
            };
            Ok((art, chain, vec![diag]))
        }
        Err(e) => Err(e),
    }
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
    let (_, n_ports) = nf.describe().map_err(|message| ReduceError::Abi {
        nf: input.id.clone(),
        message,
    })?;
    nf.init(&input.config)
        .map_err(|message| ReduceError::Config {
            nf: input.id.clone(),
            message,
        })?;
    let mut snapshot = BTreeMap::new();
    for (name, size) in sizes {
        if let Some(addr) = nf.symbol_address(&name) {
            // SAFETY: the symbol is a defined global of `size` bytes in the loaded object.
            let bytes = unsafe { std::slice::from_raw_parts(addr, size as usize) }.to_vec();
            snapshot.insert(name, bytes);
        }
    }
    Ok(NfUnit {
        id: input.id.clone(),
        prefix: format!("nf{k}_"),
        config: input.config.clone(),
        state_size: nf.state_size() as u64,
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
    })
}

fn reduce_inner(
    nfs: &[ReduceInput],
    opts: &ReduceOptions,
    lls: &[Vec<PathBuf>],
    sos: &[PathBuf],
    started: Instant,
) -> Result<(ReducedArtifacts, ReducedChain, Vec<Diagnostic>), ReduceError> {
    let pipeline = passes::pipeline();
    if let Some(d) = &opts.dump_after {
        if !pipeline.iter().any(|p| p.name() == d) {
            return Err(ReduceError::UnknownPass(d.clone()));
        }
    }
    let t_probe = Instant::now();
    let mut units = vec![];
    for (k, input) in nfs.iter().enumerate() {
        units.push(probe(opts, input, &lls[k], k)?);
    }
    let probe_ms = t_probe.elapsed().as_millis();
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
        diags: vec![],
        pending: std::cell::RefCell::new(pending),
    };
    let mut dump = None;
    for pass in &pipeline {
        if opts.skip.iter().any(|s| s == pass.name()) {
            continue;
        }
        pass.run(&mut cx)?;
        if opts.verify_each_pass {
            if let Err(e) = ir::verify(
                &module,
                "chain",
                &format!("the IR after pass `{}`", pass.name()),
            ) {
                // LLVM 19's passes occasionally leave debug records where the
                // verifier rejects them (e.g. on a phi); the code itself is fine
                // when the module verifies without debug info.
                module.strip_debug_info();
                if module.verify().is_ok() {
                    cx.diags.push(Diagnostic::note_diag(
                        "R0105",
                        format!("debug info dropped after pass `{}`: {e}", pass.name()),
                    ));
                } else {
                    return Err(e);
                }
            }
        }
        if opts.dump_after.as_deref() == Some(pass.name()) {
            dump = Some(module.print_to_string().to_string());
        }
    }
    ir::verify(&module, "chain", "the reduced IR")?;
    let passes_ms = t_passes.elapsed().as_millis();
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
    ir::compile_so(&opts.clang, "chain", &ll_path, &so_path, 2)?;
    let removals: Vec<Removal> = std::mem::take(&mut cx.removals);
    let mut diags = std::mem::take(&mut cx.diags);

    let codegen_ms = t_codegen.elapsed().as_millis();
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
    diags.push(Diagnostic::note_diag(
        "R0201",
        format!(
            "timing: probe (nf_init) {probe_ms} ms, passes {passes_ms} ms, code generation {codegen_ms} ms, differential check {} ms",
            t_verify.elapsed().as_millis()
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
    };
    Ok((art, chain, diags))
}
