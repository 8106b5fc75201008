//! Getting NFs into LLVM: compile C sources with clang-19 into unoptimised
//! textual IR (`-O0 -Xclang -disable-O0-optnone -g`, so every LLVM pass can
//! still run and debug locations name source lines), parse IR into an
//! inkwell module, verify it, run new-pass-manager pipelines, and compile
//! reduced IR back into a shared object.

use crate::error::ReduceError;
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{CodeModel, InitializationConfig, RelocMode, Target, TargetMachine};
use inkwell::OptimizationLevel;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Compile C sources of one NF into one textual IR module (sources are
/// compiled separately and linked with llvm-link-19 semantics via inkwell).
pub fn compile_c_to_ll(
    clang: &Path,
    nf: &str,
    sources: &[PathBuf],
    include_dirs: &[PathBuf],
    out_dir: &Path,
) -> Result<Vec<PathBuf>, ReduceError> {
    let mut outs = vec![];
    for (i, src) in sources.iter().enumerate() {
        let out = out_dir.join(format!("{nf}.src{i}.ll"));
        let mut cmd = Command::new(clang);
        cmd.args([
            "-O0",
            "-Xclang",
            "-disable-O0-optnone",
            "-g",
            "-fPIC",
            "-emit-llvm",
            "-S",
            "-o",
        ])
        .arg(&out);
        for inc in include_dirs {
            cmd.arg("-I").arg(inc);
        }
        cmd.arg(src);
        let res = cmd.output().map_err(|e| ReduceError::Compile {
            nf: nf.to_string(),
            message: format!("cannot run {}: {e}", clang.display()),
        })?;
        if !res.status.success() {
            return Err(ReduceError::Compile {
                nf: nf.to_string(),
                message: String::from_utf8_lossy(&res.stderr).trim().to_string(),
            });
        }
        outs.push(out);
    }
    Ok(outs)
}

/// Parse textual IR files into one module (linking when there are several).
pub fn load_module<'ctx>(
    ctx: &'ctx Context,
    nf: &str,
    lls: &[PathBuf],
) -> Result<Module<'ctx>, ReduceError> {
    let mut module: Option<Module<'ctx>> = None;
    for ll in lls {
        let text = std::fs::read(ll).map_err(|e| ReduceError::io("cannot read IR", ll, e))?;
        let m = parse_ir(ctx, nf, &text)?;
        match &module {
            None => module = Some(m),
            Some(base) => base.link_in_module(m).map_err(|e| ReduceError::Parse {
                nf: nf.to_string(),
                message: format!("linking {}: {e}", ll.display()),
            })?,
        }
    }
    let module = module.ok_or_else(|| ReduceError::NoInput { nf: nf.to_string() })?;
    verify(&module, nf, "input IR")?;
    Ok(module)
}

/// Parse IR text into a module.
pub fn parse_ir<'ctx>(
    ctx: &'ctx Context,
    nf: &str,
    text: &[u8],
) -> Result<Module<'ctx>, ReduceError> {
    let buf = MemoryBuffer::create_from_memory_range_copy(text, nf);
    ctx.create_module_from_ir(buf)
        .map_err(|e| ReduceError::Parse {
            nf: nf.to_string(),
            message: e.to_string(),
        })
}

/// Run LLVM's verifier.
pub fn verify(module: &Module<'_>, nf: &str, stage: &str) -> Result<(), ReduceError> {
    module.verify().map_err(|e| ReduceError::Verify {
        nf: nf.to_string(),
        stage: stage.to_string(),
        message: e.to_string(),
    })
}

/// The host target machine (x86-64 here), used by the new pass manager for
/// target-aware cost models.
pub fn host_machine() -> Result<TargetMachine, ReduceError> {
    Target::initialize_native(&InitializationConfig::default()).map_err(|e| ReduceError::Llvm {
        pipeline: "target init".into(),
        message: e,
    })?;
    let triple = TargetMachine::get_default_triple();
    let target = Target::from_triple(&triple).map_err(|e| ReduceError::Llvm {
        pipeline: "target".into(),
        message: e.to_string(),
    })?;
    target
        .create_target_machine(
            &triple,
            "generic",
            "",
            OptimizationLevel::Default,
            RelocMode::PIC,
            CodeModel::Default,
        )
        .ok_or_else(|| ReduceError::Llvm {
            pipeline: "target machine".into(),
            message: "cannot create target machine".into(),
        })
}

/// Run a new-pass-manager pipeline string on the module.
pub fn run_pipeline(
    module: &Module<'_>,
    machine: &TargetMachine,
    pipeline: &str,
) -> Result<(), ReduceError> {
    let opts = PassBuilderOptions::create();
    opts.set_loop_unrolling(true);
    opts.set_loop_vectorization(false);
    opts.set_loop_slp_vectorization(false);
    module
        .run_passes(pipeline, machine, opts)
        .map_err(|e| ReduceError::Llvm {
            pipeline: pipeline.to_string(),
            message: e.to_string(),
        })
}

/// Optimise a module in process with LLVM's `default<O2>` pipeline (what
/// `clang -O2` runs on IR), emit an object file with the host target machine
/// and link it into a shared object with the clang driver (one short process
/// instead of a full clang compile). The module is modified.
pub fn module_to_so(
    module: &Module<'_>,
    machine: &TargetMachine,
    clang: &Path,
    nf: &str,
    so: &Path,
) -> Result<(), ReduceError> {
    run_pipeline(module, machine, "default<O2>")?;
    let obj = so.with_extension("o");
    machine
        .write_to_file(module, inkwell::targets::FileType::Object, &obj)
        .map_err(|e| ReduceError::Compile {
            nf: nf.to_string(),
            message: format!("object emission: {e}"),
        })?;
    let res = Command::new(clang)
        .args(["-shared", "-fPIC", "-o"])
        .arg(so)
        .arg(&obj)
        .output()
        .map_err(|e| ReduceError::Compile {
            nf: nf.to_string(),
            message: format!("cannot run {}: {e}", clang.display()),
        })?;
    let _ = std::fs::remove_file(&obj);
    if !res.status.success() {
        return Err(ReduceError::Compile {
            nf: nf.to_string(),
            message: String::from_utf8_lossy(&res.stderr).trim().to_string(),
        });
    }
    Ok(())
}

/// Compile textual IR into a shared object with `clang-19 -O<level> -shared`.
pub fn compile_so(
    clang: &Path,
    nf: &str,
    ll: &Path,
    so: &Path,
    opt_level: u8,
) -> Result<(), ReduceError> {
    let res = Command::new(clang)
        .arg(format!("-O{opt_level}"))
        .args(["-shared", "-fPIC", "-Wno-override-module", "-o"])
        .arg(so)
        .arg(ll)
        .output()
        .map_err(|e| ReduceError::Compile {
            nf: nf.to_string(),
            message: format!("cannot run {}: {e}", clang.display()),
        })?;
    if !res.status.success() {
        return Err(ReduceError::Compile {
            nf: nf.to_string(),
            message: String::from_utf8_lossy(&res.stderr).trim().to_string(),
        });
    }
    Ok(())
}

/// A clang run started in the background (see [`spawn_c_to_so`]).
pub struct PendingCompile {
    nf: String,
    child: std::process::Child,
}

impl PendingCompile {
    /// Wait for the compiler; its stderr becomes the error on failure.
    pub fn finish(self) -> Result<(), ReduceError> {
        let res = self
            .child
            .wait_with_output()
            .map_err(|e| ReduceError::Compile {
                nf: self.nf.clone(),
                message: format!("waiting for clang: {e}"),
            })?;
        if !res.status.success() {
            return Err(ReduceError::Compile {
                nf: self.nf,
                message: String::from_utf8_lossy(&res.stderr).trim().to_string(),
            });
        }
        Ok(())
    }
}

/// Start compiling C sources into the unreduced shared object without
/// waiting: it is only needed by the differential check at the very end, so
/// it runs while the reducer probes and transforms.
pub fn spawn_c_to_so(
    clang: &Path,
    nf: &str,
    sources: &[PathBuf],
    include_dirs: &[PathBuf],
    so: &Path,
) -> Result<PendingCompile, ReduceError> {
    let mut cmd = Command::new(clang);
    cmd.args(["-O2", "-g", "-shared", "-fPIC", "-o"]).arg(so);
    for inc in include_dirs {
        cmd.arg("-I").arg(inc);
    }
    cmd.args(sources)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    let child = cmd.spawn().map_err(|e| ReduceError::Compile {
        nf: nf.to_string(),
        message: format!("cannot run {}: {e}", clang.display()),
    })?;
    Ok(PendingCompile {
        nf: nf.to_string(),
        child,
    })
}
