//! The reduce stage as the driver runs it: checks that a chain is one the
//! reducer can take (a line of C NFs against nf.h, every NF but the last with
//! one output port), builds each NF with the same objects `nfc run` uses,
//! calls [`nfc_reducer::reduce`] with the chain's NFs in chain order and
//! their flattened configuration, and turns the result into plain data: the
//! artefacts written (reduced `.ll`, `.so`, JSON report, and a one-NF chain
//! file that runs the reduced module), a summary for the binary to render,
//! and diagnostics. In best-effort mode every reducer failure becomes a
//! warning and the outcome says the chain stays unreduced; in strict mode it
//! is an error naming the NF and the construct. Nothing here prints: progress
//! goes through a callback the binary supplies.

use crate::driver::{self, Workspace};
use crate::Failure;
use nfc_core::chain::{ChainSpec, Framework, NfInstance, Traffic};
use nfc_core::reduced::ReducedChain;
use nfc_core::{Diagnostic, Severity};
use nfc_reducer::{ReduceError, ReduceInput, ReduceOptions, VerifyReport};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Base name of the artefacts in the output directory (`reduced.ll`, ...).
pub const ARTIFACT_NAME: &str = "reduced";

/// What a reducer failure does to the build.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReduceMode {
    /// Any failure fails the build (exit 1).
    #[default]
    Strict,
    /// A failure is a warning and the chain is emitted unreduced.
    BestEffort,
}

/// How the driver reduces a chain.
#[derive(Debug, Clone)]
pub struct ReduceStageOptions {
    /// Where the reduced artefacts go.
    pub out_dir: PathBuf,
    pub mode: ReduceMode,
    /// Return the IR right after this pass (one of [`nfc_reducer::pass_names`]).
    pub dump_after: Option<String>,
    /// Remove logging/statistics logic (otherwise it is only reported).
    pub strip_observability: bool,
    /// Packets in the differential check.
    pub verify_packets: usize,
}

impl Default for ReduceStageOptions {
    fn default() -> Self {
        ReduceStageOptions {
            out_dir: PathBuf::from("nfc-out"),
            mode: ReduceMode::Strict,
            dump_after: None,
            strip_observability: false,
            verify_packets: ReduceOptions::default().verify_packets,
        }
    }
}

/// A long step starting, for progress lines.
#[derive(Debug, Clone, PartialEq)]
pub enum Progress {
    /// Building the chain's NFs (shared objects and IR).
    Compile { nfs: usize },
    /// Loading each NF and running its nf_init with the configuration.
    Probe { nfs: usize },
    /// Running the pass pipeline, then the differential check.
    Passes {
        passes: usize,
        verify_packets: usize,
    },
}

/// Counts for the human summary and the JSON output.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ReduceSummary {
    /// NF ids consolidated, in chain order.
    pub nfs: Vec<String>,
    /// Passes that ran, in order.
    pub passes: Vec<String>,
    pub instructions_before: u64,
    pub instructions_after: u64,
    pub blocks_before: u64,
    pub blocks_after: u64,
    /// Removals per pass.
    pub removals_by_pass: BTreeMap<String, usize>,
    /// Output-only calls found but kept (no `--strip-observability`).
    pub observability_kept: usize,
    /// The differential check (always run).
    pub verification: Option<VerifyReport>,
    pub millis: u64,
}

/// The files a successful reduction wrote.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ReducedFiles {
    pub ll: PathBuf,
    pub so: PathBuf,
    pub report: PathBuf,
    /// A one-NF chain file running the reduced module (`nfc run` takes it).
    pub chain_file: PathBuf,
}

/// A successful reduction.
#[derive(Debug, Clone)]
pub struct Reduction {
    pub files: ReducedFiles,
    pub summary: ReduceSummary,
    /// The reducer's plain-data result (modules, removals).
    pub chain: ReducedChain,
    /// IR after the `dump_after` pass.
    pub dump: Option<String>,
    /// Warnings (e.g. observability logic kept).
    pub diagnostics: Vec<Diagnostic>,
}

/// What the reduce stage produced.
#[derive(Debug, Clone)]
pub enum ReducedOutcome {
    /// The chain was reduced and proven equivalent on the generated packets.
    Reduced(Box<Reduction>),
    /// Best-effort mode: the reducer could not take the chain; the chain is
    /// built unreduced. The diagnostics are warnings saying why.
    Unreduced {
        report: PathBuf,
        diagnostics: Vec<Diagnostic>,
    },
}

/// Reduce `chain` into one specialised module, or explain why not.
///
/// Errors: bad `dump_after` (always), an NF that does not build (always:
/// there is no chain to fall back to), a reduced module that differs from
/// the original on the differential check (always: E0705), and in strict
/// mode every reason the reducer cannot take the chain or failed on it.
pub fn reduce_chain(
    ws: &Workspace,
    chain: &ChainSpec,
    opts: &ReduceStageOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<ReducedOutcome, Failure> {
    let names = nfc_reducer::pass_names();
    if let Some(p) = &opts.dump_after {
        if !names.iter().any(|n| n == p) {
            return Err(unknown_pass(p, &names));
        }
    }
    std::fs::create_dir_all(&opts.out_dir)
        .map_err(|e| Failure::io(format!("creating {}", opts.out_dir.display()), e))?;
    let order = match reducible_order(chain) {
        Ok(order) => order,
        Err(reasons) => return give_up(opts, reasons),
    };
    progress(Progress::Compile { nfs: order.len() });
    let objects = driver::build_objects(chain, ws)?;
    progress(Progress::Probe { nfs: order.len() });
    if let Err(reasons) = check_ports(ws, &order, &objects) {
        return give_up(opts, reasons);
    }
    let mut inputs = vec![];
    let mut blocks_before = 0;
    for inst in &order {
        let (sources, _) = driver::nf_sources(inst)?;
        let built = objects
            .iter()
            .find(|(id, _)| *id == inst.id.0)
            .map(|(_, b)| b)
            .ok_or_else(|| Failure::Internal {
                stage: "reduce",
                message: format!("NF `{}` was not built", inst.id),
            })?;
        blocks_before += read_ir(&built.ll).map(|t| count_blocks(&t))?;
        inputs.push(ReduceInput {
            id: inst.id.0.clone(),
            sources: sources
                .into_iter()
                .filter(|f| f.extension().is_some_and(|e| e == "c"))
                .collect(),
            // The reducer compiles the sources itself (position-independent
            // -O0 IR); it runs the very shared object `nfc run` uses as the
            // original side of the differential check.
            ll: None,
            config: inst.config.flatten(),
            so_path: Some(built.so.clone()),
        });
    }
    let ropts = ReduceOptions {
        out_dir: opts.out_dir.clone(),
        name: ARTIFACT_NAME.into(),
        dump_after: opts.dump_after.clone(),
        strip_observability: opts.strip_observability,
        best_effort: false,
        verify_packets: opts.verify_packets,
        include_dirs: vec![nfc_nfs::include_dir()],
        ..ReduceOptions::default()
    };
    progress(Progress::Passes {
        passes: names.len(),
        verify_packets: opts.verify_packets,
    });
    let result = nfc_reducer::reduce(&inputs, &ropts);
    let (art, reduced, rdiags) = match result {
        Ok(r) => r,
        // A reduction that changes behaviour is a failed build in every mode
        // (ARCHITECTURE.md), and its unproven module is not left behind.
        Err(e @ ReduceError::Mismatch { .. }) => {
            for ext in ["so", "ll"] {
                let _ = std::fs::remove_file(opts.out_dir.join(format!("{ARTIFACT_NAME}.{ext}")));
            }
            return Err(Failure::diag(reduce_error_diag(&e, chain)));
        }
        Err(e) => return give_up(opts, vec![reduce_error_diag(&e, chain)]),
    };
    let (Some(ll), Some(so)) = (art.ll_path.clone(), art.so_path.clone()) else {
        return Err(Failure::Internal {
            stage: "reduce",
            message: "the reducer returned no reduced module".into(),
        });
    };
    let blocks_after = count_blocks(&read_ir(&ll)?);
    let chain_file = write_chain_file(chain, &opts.out_dir, &so)?;
    let module = reduced.modules.first();
    let mut removals_by_pass = BTreeMap::new();
    for r in &reduced.removals {
        *removals_by_pass.entry(r.pass.clone()).or_insert(0) += 1;
    }
    let observability_kept = rdiags.iter().filter(|d| d.code == "R0101").count();
    let summary = ReduceSummary {
        nfs: order.iter().map(|n| n.id.0.clone()).collect(),
        passes: names.iter().map(|s| s.to_string()).collect(),
        instructions_before: module.map_or(0, |m| m.ir_instructions_before),
        instructions_after: module.map_or(0, |m| m.ir_instructions_after),
        blocks_before,
        blocks_after,
        removals_by_pass,
        observability_kept,
        verification: art.verification.clone(),
        millis: reduced.millis,
    };
    // The reducer's notes (verification, timing) are in the report and the
    // summary; warnings go to the user with CLI wording.
    let diagnostics = rdiags
        .into_iter()
        .filter(|d| d.severity != Severity::Note)
        .map(|mut d| {
            if d.code == "R0101" {
                d.hint =
                    Some("pass --strip-observability to remove it from the reduced module".into());
            }
            d
        })
        .collect();
    Ok(ReducedOutcome::Reduced(Box::new(Reduction {
        files: ReducedFiles {
            ll,
            so,
            report: art.report_path,
            chain_file,
        },
        summary,
        chain: reduced,
        dump: art.dump,
        diagnostics,
    })))
}

fn unknown_pass(p: &str, names: &[&str]) -> Failure {
    Failure::diag(
        Diagnostic::error("E0704", format!("unknown pass `{p}` for --dump-after"))
            .with_note(format!(
                "the reducer's passes, in order: {}",
                names.join(", ")
            ))
            .with_hint("pass one of the names above"),
    )
}

/// Strict: the reasons are errors. Best effort: warnings, and a report that
/// says the chain stays unreduced.
fn give_up(opts: &ReduceStageOptions, reasons: Vec<Diagnostic>) -> Result<ReducedOutcome, Failure> {
    match opts.mode {
        ReduceMode::Strict => Err(Failure::Diagnostics(
            reasons
                .into_iter()
                .map(|d| {
                    let hint = match &d.hint {
                        Some(h) => format!(
                            "{h}; or pass --reduce=best-effort to build the chain unreduced"
                        ),
                        None => "pass --reduce=best-effort to build the chain unreduced".into(),
                    };
                    d.with_hint(hint)
                })
                .collect(),
        )),
        ReduceMode::BestEffort => {
            let diagnostics: Vec<Diagnostic> = reasons
                .into_iter()
                .map(|mut d| {
                    d.severity = Severity::Warning;
                    d.message = format!("{} (chain built unreduced)", d.message);
                    d
                })
                .collect();
            let report = opts.out_dir.join(format!("{ARTIFACT_NAME}.report.json"));
            let text = serde_json::to_string_pretty(&serde_json::json!({
                "fell_back": true,
                "diagnostics": diagnostics,
            }))
            .map_err(|e| Failure::Internal {
                stage: "reduce",
                message: e.to_string(),
            })?;
            std::fs::write(&report, text)
                .map_err(|e| Failure::io(format!("writing {}", report.display()), e))?;
            Ok(ReducedOutcome::Unreduced {
                report,
                diagnostics,
            })
        }
    }
}

/// The chain's NFs in packet order when the chain is a line of C NFs;
/// otherwise every reason it is not (E0701 topology, E0702 framework).
fn reducible_order(chain: &ChainSpec) -> Result<Vec<&NfInstance>, Vec<Diagnostic>> {
    let mut reasons = vec![];
    for inst in &chain.nfs {
        let (files, framework) = match driver::nf_sources(inst) {
            Ok(r) => r,
            Err(Failure::Diagnostics(d)) => {
                reasons.extend(d);
                continue;
            }
            Err(_) => continue,
        };
        if framework != Framework::NfcC {
            reasons.push(
                Diagnostic::error(
                    "E0702",
                    format!(
                        "NF `{}` is {} code; the reducer needs C written against nfs/include/nf.h",
                        inst.id,
                        framework.name()
                    ),
                )
                .with_span_opt(inst.span.clone()),
            );
        } else if !files
            .iter()
            .any(|f| f.extension().is_some_and(|e| e == "c"))
        {
            reasons.push(
                Diagnostic::error(
                    "E0702",
                    format!(
                        "NF `{}` has no C source files (only {}); the reducer needs the NF's C sources",
                        inst.id,
                        files
                            .iter()
                            .map(|f| f.display().to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )
                .with_span_opt(inst.span.clone()),
            );
        }
    }
    let entries = chain.entries();
    if entries.len() != 1 {
        let ids: Vec<String> = entries.iter().map(|n| format!("`{}`", n.id)).collect();
        reasons.push(
            Diagnostic::error(
                "E0701",
                format!(
                    "the chain has {} entry NFs ({}); the reducer consolidates a single line of NFs",
                    entries.len(),
                    ids.join(", ")
                ),
            )
            .with_span_opt(entries.get(1).and_then(|n| n.span.clone())),
        );
        return Err(reasons);
    }
    let mut order = vec![entries[0]];
    loop {
        let cur = order[order.len() - 1];
        let next = chain.successors(&cur.id.0);
        match next.as_slice() {
            [] => break,
            [(0, id)] => match chain.nf(&id.0) {
                Some(n) if order.iter().all(|o| o.id != n.id) => order.push(n),
                _ => break,
            },
            _ => {
                let targets: Vec<String> = next
                    .iter()
                    .map(|(p, id)| format!("port {p} → `{id}`"))
                    .collect();
                let shape = if next.len() > 1 {
                    "fans out"
                } else {
                    "links a port other than 0"
                };
                reasons.push(
                    Diagnostic::error(
                        "E0701",
                        format!(
                            "the chain is a DAG: NF `{}` {shape} ({}); the reducer consolidates a single line of NFs",
                            cur.id,
                            targets.join(", ")
                        ),
                    )
                    .with_span_opt(cur.span.clone()),
                );
                return Err(reasons);
            }
        }
    }
    if order.len() != chain.nfs.len() {
        reasons.push(Diagnostic::error(
            "E0701",
            "the chain's topology is not a single line of NFs from one entry; the reducer consolidates only lines",
        ));
    }
    if reasons.is_empty() {
        Ok(order)
    } else {
        Err(reasons)
    }
}

/// The consolidated module forwards every non-drop verdict of NF k to NF k+1
/// (as its input port), while the executor lets a packet leave the chain
/// through any unlinked port. The two agree only when every NF but the last
/// has one output port. Loading each NF also runs its nf_init, so a config
/// the NF rejects is reported here, before any pass runs.
fn check_ports(
    ws: &Workspace,
    order: &[&NfInstance],
    objects: &[(String, nfc_nfs::BuiltNf)],
) -> Result<(), Vec<Diagnostic>> {
    let scratch = ws.dir.join("scratch");
    if let Err(e) = std::fs::create_dir_all(&scratch) {
        return Err(vec![Diagnostic::error(
            "E0700",
            format!("cannot create {}: {e}", scratch.display()),
        )]);
    }
    let mut reasons = vec![];
    for (k, inst) in order.iter().enumerate() {
        let Some((_, built)) = objects.iter().find(|(id, _)| *id == inst.id.0) else {
            continue;
        };
        match flash_rt::offline::abi::NfLibrary::load(
            &inst.id.0,
            &built.so,
            &inst.config.flatten(),
            &scratch,
        ) {
            Ok(lib) if k + 1 < order.len() && lib.n_ports > 1 => reasons.push(
                Diagnostic::error(
                    "E0701",
                    format!(
                        "NF `{}` has {} output ports but is not the last NF; the reduced module would send every port to `{}`",
                        inst.id,
                        lib.n_ports,
                        order[k + 1].id
                    ),
                )
                .with_span_opt(inst.span.clone()),
            ),
            Ok(_) => {}
            // Only nf_init's verdict is about the configuration; anything
            // else is the NF's object not following nf.h.
            Err(
                e @ (flash_rt::offline::ExecError::Init { .. }
                | flash_rt::offline::ExecError::BadConfig { .. }),
            ) => reasons.push(
                Diagnostic::error("E0703", e.to_string())
                    .with_span_opt(inst.span.clone())
                    .with_hint("fix this NF's `config:` in the chain file (see the NF's configs/default.yaml)"),
            ),
            Err(e) => reasons.push(
                Diagnostic::error("E0700", format!("cannot reduce the chain: {e}"))
                    .with_span_opt(inst.span.clone())
                    .with_hint("the NF must implement the nf.h ABI (nf_describe, nf_init, nf_state_size, nf_process) to be reduced or run"),
            ),
        }
    }
    if reasons.is_empty() {
        Ok(())
    } else {
        Err(reasons)
    }
}

/// A reducer error as a diagnostic naming the NF (with its chain location)
/// and the construct.
fn reduce_error_diag(e: &ReduceError, chain: &ChainSpec) -> Diagnostic {
    let (code, nf, hint) = match e {
        ReduceError::Config { nf, .. } => (
            "E0703",
            Some(nf),
            "fix this NF's `config:` in the chain file (see the NF's configs/default.yaml)",
        ),
        ReduceError::UnknownPass(_) => ("E0704", None, "see `nfc build --help`"),
        ReduceError::Mismatch { .. } => (
            "E0705",
            None,
            "the reduction changed behaviour, so it is refused; please report the chain and config",
        ),
        ReduceError::Compile { nf, .. }
        | ReduceError::Parse { nf, .. }
        | ReduceError::Verify { nf, .. }
        | ReduceError::Abi { nf, .. } => (
            "E0700",
            Some(nf),
            "the reducer does not support this construct in the NF",
        ),
        _ => ("E0700", None, "the reducer failed on this chain"),
    };
    let span = nf.and_then(|id| chain.nf(id)).and_then(|n| n.span.clone());
    Diagnostic::error(code, format!("cannot reduce the chain: {e}"))
        .with_span_opt(span)
        .with_hint(hint)
}

fn read_ir(path: &Path) -> Result<String, Failure> {
    std::fs::read_to_string(path).map_err(|e| Failure::io(format!("reading {}", path.display()), e))
}

/// Basic blocks of every function defined in textual LLVM IR: one per label
/// line inside a `define ... {` body, plus the entry block when LLVM prints
/// it without a label (unnamed, `%0`).
pub fn count_blocks(ir: &str) -> u64 {
    let mut blocks = 0;
    let mut in_body = false;
    let mut at_entry = false;
    for line in ir.lines() {
        if !in_body {
            if line.starts_with("define ") && line.trim_end().ends_with('{') {
                in_body = true;
                at_entry = true;
            }
            continue;
        }
        if line.starts_with('}') {
            in_body = false;
            continue;
        }
        if line.trim().is_empty() || line.trim_start().starts_with(';') {
            continue;
        }
        let label = !line.starts_with(' ')
            && line
                .split(';')
                .next()
                .unwrap_or("")
                .trim_end()
                .ends_with(':');
        if label || at_entry {
            blocks += 1;
        }
        at_entry = false;
    }
    blocks
}

/// A chain file with one NF, the reduced module, so `nfc run` (and the
/// flash target) can run it; a pcap traffic source is kept.
fn write_chain_file(chain: &ChainSpec, out: &Path, so: &Path) -> Result<PathBuf, Failure> {
    let so_name = so
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_else(|| format!("{ARTIFACT_NAME}.so"));
    let ids: Vec<String> = chain.topo_order().iter().map(|n| n.id.0.clone()).collect();
    let mut text = format!(
        "# The chain `{}` ({}) reduced into one module by `nfc build --emit reduced`.\n\
         # Its configuration is compiled in, so it takes no `config:`.\n\
         name: {}\nnfs:\n  - id: {}\n    source: [{}]\n",
        chain.name,
        ids.join(" → "),
        yaml_str(&format!("{}-reduced", chain.name)),
        ARTIFACT_NAME,
        yaml_str(&so_name),
    );
    if let Traffic::Pcap { path } = &chain.traffic {
        let abs = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
        text.push_str(&format!(
            "traffic:\n  pcap: {}\n",
            yaml_str(&abs.display().to_string())
        ));
    }
    let path = out.join(format!("{ARTIFACT_NAME}.chain.yaml"));
    std::fs::write(&path, text)
        .map_err(|e| Failure::io(format!("writing {}", path.display()), e))?;
    Ok(path)
}

/// A YAML double-quoted scalar.
fn yaml_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("\"{s}\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(ir: &str, expect: u64) {
        assert_eq!(count_blocks(ir), expect, "{ir}");
    }

    #[test]
    fn counts_entry_and_labelled_blocks() {
        check("declare i32 @f(i32)\n", 0);
        check("define i32 @f() {\n  ret i32 0\n}\n", 1);
        check(
            "define i32 @f(i1 %c) #0 {\nentry:\n  br i1 %c, label %a, label %b\n\na:                                                ; preds = %entry\n  ret i32 1\n\nb:\n  ret i32 2\n}\n\ndefine void @g() {\n  ret void\n}\n",
            4,
        );
        check(
            "define i32 @f() {\n  br label %1\n\n1:                                                ; preds = %0\n  ret i32 0\n}\n",
            2,
        );
    }

    fn chain(yaml: &str) -> ChainSpec {
        driver::parse_chain_text(yaml, "inline.yaml").expect("valid chain")
    }

    fn reasons(yaml: &str) -> Vec<String> {
        let c = chain(yaml);
        match reducible_order(&c) {
            Ok(order) => order.iter().map(|n| n.id.0.clone()).collect(),
            Err(d) => d.iter().map(|d| d.code.clone()).collect(),
        }
    }

    #[test]
    fn lines_are_reducible_in_packet_order() {
        assert_eq!(
            reasons("nfs:\n  - {id: b, nf: l2fwd}\n  - {id: a, nf: firewall}\nchain: [a, b]\n"),
            ["a", "b"]
        );
        assert_eq!(reasons("nfs:\n  - {id: a, nf: firewall}\n"), ["a"]);
    }

    #[test]
    fn fan_out_is_rejected() {
        let yaml = "nfs:\n  - {id: lb, nf: maglev}\n  - {id: a, nf: l2fwd}\n  - {id: b, nf: l2fwd}\nedges:\n  - {from: lb, to: a}\n  - {from: lb, port: 1, to: b}\n";
        assert_eq!(reasons(yaml), ["E0701"]);
    }
}
