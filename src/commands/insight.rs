//! `nfc insight`: SmartNIC insight per NF (Clara §3, §4.1) — predicted
//! compute instructions and memory accesses on the packet path (per
//! function, per block with `--blocks`) on the proxy NIC ISA (riscv32,
//! llc-19 -O2), and accelerator candidates (CRC, LPM). The default compute
//! model is the shipped per-word cost model (no libtorch in `nfc`);
//! `--model DIR` uses an LSTM trained by `nfc predict insight train`, run
//! by `nfc-predict`. An NF that does not compile is reported as unknown
//! with the compiler's located message (E0810) and the exit code is 1.

use super::{out, warnings, Format};
use anyhow::Context;
use nfc::driver;
use nfc::insight::{self as ins, NfInsight};
use nfc_core::Diagnostic;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// A chain file (each of its NFs), or NF C files and directories (each argument is one NF).
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Print (or include in the JSON) the prediction of every basic block.
    #[arg(long)]
    pub blocks: bool,
    /// A directory with an LSTM saved by `nfc predict insight train --out DIR` (runs `nfc-predict`).
    #[arg(long, value_name = "DIR")]
    pub model: Option<PathBuf>,
    /// Extra directories searched for the NFs' `#include`s (nfc's own, with nf.h, is always searched).
    #[arg(long = "include", short = 'I', value_name = "DIR")]
    pub include_dirs: Vec<PathBuf>,
}

fn is_chain(p: &std::path::Path) -> bool {
    p.is_file() && p.extension().is_some_and(|e| e == "yaml" || e == "yml")
}

/// (NF name, its source files) for every input.
pub(super) fn nfs_of(
    inputs: &[PathBuf],
    diags: &mut Vec<Diagnostic>,
) -> anyhow::Result<Vec<(String, Vec<PathBuf>)>> {
    let mut nfs = vec![];
    for input in inputs {
        if is_chain(input) {
            let (chain, w) = driver::load_chain(input)?;
            diags.extend(w);
            for inst in &chain.nfs {
                let (files, _) = driver::nf_sources(inst)?;
                nfs.push((inst.id.to_string(), files));
            }
        } else if input.is_dir() {
            let mut files: Vec<PathBuf> = std::fs::read_dir(input)
                .with_context(|| format!("reading {}", input.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "c"))
                .collect();
            files.sort();
            let name = input
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| input.display().to_string());
            nfs.push((name, files));
        } else if input.is_file() {
            let name = input
                .file_stem()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| input.display().to_string());
            nfs.push((name, vec![input.clone()]));
        } else {
            return Err(nfc::Failure::diag(
                Diagnostic::error(
                    "E0810",
                    format!("{}: no such file or directory", input.display()),
                )
                .with_hint("pass a chain file, or NF C files or directories"),
            )
            .into());
        }
    }
    Ok(nfs)
}

/// The compiler's first error line (what the diagnostic's message says).
pub(super) fn first_error(msg: &str) -> &str {
    msg.lines()
        .find(|l| l.contains(": error"))
        .map(|l| l.rsplit("clang-19: ").next().unwrap_or(l))
        .unwrap_or_else(|| msg.lines().next().unwrap_or(msg))
        .trim()
}

/// The first `file:line:col: error` of a compiler message, as a span.
pub(super) fn clang_span(msg: &str) -> Option<nfc_core::Span> {
    for line in msg.lines() {
        let Some(i) = line.find(": error") else {
            continue;
        };
        let loc = line[..i].rsplit(' ').next()?;
        let mut parts = loc.rsplitn(3, ':');
        let col = parts.next()?.trim().parse().ok()?;
        let ln = parts.next()?.trim().parse().ok()?;
        let file = parts.next()?.trim();
        return Some(nfc_core::Span::point(file, ln, col));
    }
    None
}

pub fn run(args: Args, fmt: Format) -> anyhow::Result<ExitCode> {
    let models = ins::shipped_models().map_err(|e| {
        nfc::Failure::diag(
            Diagnostic::error(
                "E0811",
                format!("the insight models could not be loaded: {e}"),
            )
            .with_hint("rebuild nfc; the models are compiled in from crates/smartnic/data/insight"),
        )
    })?;
    let mut diags = vec![];
    let nfs = nfs_of(&args.inputs, &mut diags)?;
    let mut include = args.include_dirs.clone();
    include.push(nfc_nfs::include_dir());
    let mut reports: Vec<NfInsight> = vec![];
    let mut units = vec![];
    let mut failed = false;
    for (name, files) in &nfs {
        match ins::lower_nf(name, files, &include) {
            Ok(u) => {
                reports.push(ins::nf_insight(name, &u, files, &models, args.blocks));
                units.push(u);
            }
            Err(e) => {
                failed = true;
                diags.push(
                    Diagnostic::error("E0810", format!("NF `{name}` does not compile for the insight proxy target: {}", first_error(&e)))
                        .with_span_opt(clang_span(&e))
                        .with_hint("its figures are unknown; fix the error (or pass -I for missing headers) and run again"),
                );
                reports.push(ins::unknown_nf(name, e));
            }
        }
    }
    if let Some(dir) = &args.model {
        lstm(dir, &units, &mut reports, args.blocks)?;
    }
    warnings(&diags, fmt);
    match fmt {
        Format::Json => out(&format!("{}\n", serde_json::to_string_pretty(&reports)?))?,
        Format::Human => out(&human(&reports, args.blocks))?,
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Replace the compute figures by the LSTM's (`nfc-predict insight predict`).
fn lstm(
    dir: &std::path::Path,
    units: &[nfc_core::insight::IrUnit],
    reports: &mut [NfInsight],
    blocks: bool,
) -> anyhow::Result<()> {
    let exe = super::predict::predictor_exe()?;
    let tmp = tempfile::tempdir()?;
    let path = tmp.path().join("units.json");
    std::fs::write(&path, serde_json::to_vec(units)?)?;
    let o = std::process::Command::new(&exe)
        .args(["--format", "json", "insight", "predict", "--model"])
        .arg(dir)
        .arg("--units")
        .arg(&path)
        .output()
        .with_context(|| format!("running {}", exe.display()))?;
    if !o.status.success() {
        return Err(nfc::Failure::diag(Diagnostic::error(
            "E0811",
            format!(
                "the LSTM in {} could not be run: {}",
                dir.display(),
                String::from_utf8_lossy(&o.stderr).trim()
            ),
        ))
        .into());
    }
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&o.stdout)
        .with_context(|| format!("reading {}'s output", exe.display()))?;
    for r in reports.iter_mut().filter(|r| r.unknown.is_none()) {
        let mut fs = std::mem::take(&mut r.functions);
        for f in &mut fs {
            let row = rows.iter().find(|x| {
                x["unit"].as_str() == Some(r.nf.as_str())
                    && x["function"].as_str() == Some(&f.function)
            });
            if let Some(row) = row {
                f.compute_instructions = row["compute_instructions"].as_f64().unwrap_or(f64::NAN);
                if let (true, Some(bs), Some(per)) =
                    (blocks, f.blocks.as_mut(), row["blocks"].as_array())
                {
                    for (b, p) in bs.iter_mut().zip(per) {
                        b.compute_instructions = p.as_f64().unwrap_or(f64::NAN);
                    }
                }
            }
        }
        let accel = std::mem::take(&mut r.accelerators);
        *r = ins::finish(&r.nf, r.entry.clone(), fs, accel, "lstm");
    }
    Ok(())
}

/// One block per NF.
pub fn human(reports: &[NfInsight], blocks: bool) -> String {
    let mut t = String::new();
    for r in reports {
        if let Some(why) = &r.unknown {
            t.push_str(&format!(
                "{}: unknown (does not compile for the proxy target)\n    {}\n",
                r.nf,
                first_error(why)
            ));
            continue;
        }
        let path = match &r.entry {
            Some(e) => format!("packet path from {e}"),
            None => "no nf_process: every function".to_string(),
        };
        t.push_str(&format!(
            "{}: {path}: {:.0} compute instructions, {} memory accesses (proxy riscv32, {} model)\n",
            r.nf,
            r.compute_instructions.unwrap_or(f64::NAN),
            r.memory_accesses.unwrap_or(0),
            r.model
        ));
        for f in &r.functions {
            t.push_str(&format!(
                "    {}{}: {:.0} compute, {} memory\n",
                f.function,
                if f.on_packet_path {
                    ""
                } else {
                    " (off the packet path)"
                },
                f.compute_instructions,
                f.memory_accesses
            ));
            if blocks {
                for b in f.blocks.iter().flatten() {
                    t.push_str(&format!(
                        "        {}: {:.1} compute, {} memory\n",
                        b.block, b.compute_instructions, b.memory_accesses
                    ));
                }
            }
        }
        if r.accelerators.is_empty() {
            t.push_str("    accelerators: none found\n");
        }
        for a in &r.accelerators {
            let at = match (&a.file, a.line) {
                (Some(f), Some(l)) => format!(", {f}:{l}"),
                _ => String::new(),
            };
            t.push_str(&format!(
                "    accelerator: {} `{}` (confidence {:.2}{at})\n",
                a.kind.name(),
                a.function,
                a.confidence
            ));
        }
    }
    t
}
