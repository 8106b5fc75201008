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
use nfc_core::chain::{ChainSpec, Framework, NfInstance, NfSource, Traffic};
use nfc_core::plan::{Plan, Sharing};
use nfc_core::reduced::ReducedChain;
use nfc_core::{Diagnostic, Facts, Severity};
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
    /// Reduce what can be reduced, without being asked: a chain (or segment)
    /// the reducer cannot take is built unreduced, and why is a note (what
    /// `nfc build` does by default, without `--emit reduced`).
    Auto,
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

/// One consolidated segment of the chain (a maximal run of NFs the reducer
/// took): its module, report and summary.
#[derive(Debug, Clone)]
pub struct Reduction {
    /// Id of the one NF that runs the segment in the reduced chain.
    pub id: String,
    pub files: ReducedFiles,
    pub summary: ReduceSummary,
    /// The reducer's plain-data result (modules, removals).
    pub chain: ReducedChain,
    /// IR after the `dump_after` pass.
    pub dump: Option<String>,
    /// Warnings (e.g. observability logic kept).
    pub diagnostics: Vec<Diagnostic>,
}

/// The whole-chain differential check: the original chain and the reduced
/// chain, each run by the reference executor over the same packets.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ChainCheck {
    pub packets: u64,
    /// Packets that left each chain (equal in both, byte for byte and exit).
    pub exits: u64,
    pub dropped: u64,
    pub millis: u64,
}

/// The reduced chain: what the later stages place and deploy.
#[derive(Debug, Clone)]
pub struct ReducedChainOutcome {
    /// Every segment consolidated, in chain order.
    pub segments: Vec<Reduction>,
    /// The chain with each segment replaced by the one NF running its module.
    pub chain: ChainSpec,
    /// A chain file for `chain` (`nfc run` takes it).
    pub chain_file: PathBuf,
    /// The original and the reduced chain over the same packets.
    pub check: ChainCheck,
    /// Why the NFs outside every segment were not consolidated (notes).
    pub not_reduced: Vec<Diagnostic>,
    /// Warnings of the segments' reductions.
    pub diagnostics: Vec<Diagnostic>,
}

impl ReducedChainOutcome {
    /// The segment whose NF has this id in the reduced chain.
    pub fn segment(&self, id: &str) -> Option<&Reduction> {
        self.segments.iter().find(|r| r.id == id)
    }
}

/// What the reduce stage produced.
#[derive(Debug, Clone)]
pub enum ReducedOutcome {
    /// One or more segments were reduced and proven equivalent, each on the
    /// reducer's generated packets and the whole chain on the executor.
    Reduced(Box<ReducedChainOutcome>),
    /// Nothing was reduced; the chain is built unreduced. The diagnostics say
    /// why (warnings in best-effort mode, notes in auto mode); `report` is
    /// written in best-effort mode.
    Unreduced {
        report: Option<PathBuf>,
        diagnostics: Vec<Diagnostic>,
    },
}

/// Reduce every maximal linear segment of `chain` (two or more NFs the
/// reducer can take, joined by one-port links, see [`linear_segments`]) into
/// one specialised module each, or explain why not. `facts` and `plan` are
/// the original chain's: a link whose NFs the plan places differently (one
/// shared, one shared-nothing), or whose consolidated NF could no longer be
/// split by the plan's hash, ends a segment, so reduction never costs the
/// placement a shared-nothing NF.
///
/// Errors: bad `dump_after` (always), an NF that does not build (always:
/// there is no chain to fall back to), a reduced module or chain that differs
/// from the original on a differential check (always: E0705), and in strict
/// mode every reason the reducer cannot take the chain or failed on it.
pub fn reduce_chain(
    ws: &Workspace,
    chain: &ChainSpec,
    facts: &[Facts],
    plan: Option<&Plan>,
    opts: &ReduceStageOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<ReducedOutcome, Failure> {
    let names = nfc_reducer::pass_names();
    if let Some(p) = &opts.dump_after {
        if !names.iter().any(|n| n == p) {
            return Err(unknown_pass(p, &names));
        }
    }
    let (mut segments, mut reasons) = linear_segments(chain, facts, plan);
    if segments.is_empty() {
        // Say why the chain as a whole is not one line, when it is not.
        if let Err(r) = reducible_order(chain) {
            reasons = r;
        }
        return give_up(opts, reasons);
    }
    std::fs::create_dir_all(&opts.out_dir)
        .map_err(|e| Failure::io(format!("creating {}", opts.out_dir.display()), e))?;
    let in_segments: usize = segments.iter().map(Vec::len).sum();
    progress(Progress::Compile { nfs: in_segments });
    let objects = driver::build_objects(chain, ws)?;
    progress(Progress::Probe { nfs: in_segments });
    let mut probe_errors = vec![];
    segments = segments
        .into_iter()
        .flat_map(|seg| match split_at_ports(ws, chain, &seg, &objects) {
            Ok(parts) => parts,
            Err(r) => {
                probe_errors.extend(r);
                vec![]
            }
        })
        .filter(|s| s.len() >= 2)
        .collect();
    // A configuration an NF rejects, or an object that does not follow nf.h,
    // stops the reduction in strict mode wherever it is.
    let fatal = probe_errors
        .iter()
        .any(|d| d.code == "E0703" || d.code == "E0700");
    if segments.is_empty() || (fatal && opts.mode == ReduceMode::Strict) {
        let mut r = probe_errors;
        if r.is_empty() {
            r = reasons;
        }
        return give_up(opts, r);
    }
    reasons.extend(probe_errors);
    let whole = segments.len() == 1 && segments[0].len() == chain.nfs.len();
    let mut done = vec![];
    let mut diagnostics = vec![];
    for seg in &segments {
        let order: Vec<&NfInstance> = seg.iter().map(|&i| &chain.nfs[i]).collect();
        let (id, out_dir) = if whole {
            (ARTIFACT_NAME.to_string(), opts.out_dir.clone())
        } else {
            let id = segment_id(chain, &order);
            let dir = opts.out_dir.join(&id);
            (id, dir)
        };
        progress(Progress::Passes {
            passes: names.len(),
            verify_packets: opts.verify_packets,
        });
        match reduce_segment(ws, chain, &order, &objects, &id, &out_dir, opts) {
            Ok(r) => {
                diagnostics.extend(r.diagnostics.iter().cloned());
                done.push(r);
            }
            Err(SegmentFailure::Fatal(f)) => return Err(f),
            Err(SegmentFailure::Refused(d)) if opts.mode == ReduceMode::Strict => {
                return give_up(opts, vec![*d])
            }
            Err(SegmentFailure::Refused(d)) => reasons.push(*d),
        }
    }
    if done.is_empty() {
        return give_up(opts, reasons);
    }
    let reduced = replace_segments(chain, &done, &segments);
    let check = check_chains(ws, chain, &objects, &reduced, &done, opts.verify_packets)?;
    let chain_file = write_chain_file(chain, &reduced, &opts.out_dir)?;
    // Where the reducer failed on an NF (E0700) or its configuration (E0703)
    // the user hears it in every mode; topology reasons are notes in auto mode.
    let not_reduced = reasons
        .into_iter()
        .map(|mut d| {
            let failure = d.code == "E0700" || d.code == "E0703";
            d.severity = if opts.mode == ReduceMode::Auto && !failure {
                Severity::Note
            } else {
                Severity::Warning
            };
            d
        })
        .collect();
    Ok(ReducedOutcome::Reduced(Box::new(ReducedChainOutcome {
        segments: done,
        chain: reduced,
        chain_file,
        check,
        not_reduced,
        diagnostics,
    })))
}

/// Why one segment was not reduced.
enum SegmentFailure {
    /// Fails the build in every mode (E0705, I/O, internal).
    Fatal(Failure),
    /// The reducer cannot take the segment (E0700..E0704).
    Refused(Box<Diagnostic>),
}

/// Reduce one segment (NFs in packet order) into `out_dir/reduced.*`.
fn reduce_segment(
    ws: &Workspace,
    chain: &ChainSpec,
    order: &[&NfInstance],
    objects: &[(String, nfc_nfs::BuiltNf)],
    id: &str,
    out_dir: &Path,
    opts: &ReduceStageOptions,
) -> Result<Reduction, SegmentFailure> {
    let _ = ws;
    let fatal = SegmentFailure::Fatal;
    std::fs::create_dir_all(out_dir)
        .map_err(|e| fatal(Failure::io(format!("creating {}", out_dir.display()), e)))?;
    let mut inputs = vec![];
    let mut blocks_before = 0;
    for inst in order {
        let (sources, _) = driver::nf_sources(inst).map_err(fatal)?;
        let built = objects
            .iter()
            .find(|(id, _)| *id == inst.id.0)
            .map(|(_, b)| b)
            .ok_or_else(|| {
                fatal(Failure::Internal {
                    stage: "reduce",
                    message: format!("NF `{}` was not built", inst.id),
                })
            })?;
        blocks_before += read_ir(&built.ll)
            .map(|t| count_blocks(&t))
            .map_err(fatal)?;
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
    let names = nfc_reducer::pass_names();
    let ropts = ReduceOptions {
        out_dir: out_dir.to_path_buf(),
        name: ARTIFACT_NAME.into(),
        dump_after: opts.dump_after.clone(),
        strip_observability: opts.strip_observability,
        best_effort: false,
        verify_packets: opts.verify_packets,
        include_dirs: vec![nfc_nfs::include_dir()],
        ..ReduceOptions::default()
    };
    let (art, reduced, rdiags) = match nfc_reducer::reduce(&inputs, &ropts) {
        Ok(r) => r,
        // A reduction that changes behaviour is a failed build in every mode
        // (ARCHITECTURE.md), and its unproven module is not left behind.
        Err(e @ ReduceError::Mismatch { .. }) => {
            for ext in ["so", "ll"] {
                let _ = std::fs::remove_file(out_dir.join(format!("{ARTIFACT_NAME}.{ext}")));
            }
            return Err(fatal(Failure::diag(reduce_error_diag(&e, chain))));
        }
        Err(e) => {
            return Err(SegmentFailure::Refused(Box::new(reduce_error_diag(
                &e, chain,
            ))))
        }
    };
    let (Some(ll), Some(so)) = (art.ll_path.clone(), art.so_path.clone()) else {
        return Err(fatal(Failure::Internal {
            stage: "reduce",
            message: "the reducer returned no reduced module".into(),
        }));
    };
    let blocks_after = count_blocks(&read_ir(&ll).map_err(fatal)?);
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
    let so = std::fs::canonicalize(&so).unwrap_or(so);
    Ok(Reduction {
        id: id.to_string(),
        files: ReducedFiles {
            ll,
            so,
            report: art.report_path,
            chain_file: opts.out_dir.join(format!("{ARTIFACT_NAME}.chain.yaml")),
        },
        summary,
        chain: reduced,
        dump: art.dump,
        diagnostics,
    })
}

/// The id of a segment's NF in the reduced chain: its first and last NF
/// (`fw-to-lb`), made unique against the chain's other ids.
fn segment_id(chain: &ChainSpec, order: &[&NfInstance]) -> String {
    let first = &order[0].id.0;
    let last = &order[order.len() - 1].id.0;
    let mut id = format!("{first}-to-{last}");
    while chain.nf(&id).is_some() {
        id.push('_');
    }
    id
}

/// Maximal linear segments of the chain, as indices into `chain.nfs` in
/// packet order (only those of two or more NFs), and why each other link
/// does not join its NFs. NF `a` and its successor `b` are joined when `a`
/// links only port 0, only to `b`; `b` has no other predecessor; both are C
/// NFs against nf.h with sources; the operator pins them alike; and the
/// plan (when it uses more than one core) places them alike, with the
/// consolidated NF still splittable by its hash when they are split.
pub fn linear_segments(
    chain: &ChainSpec,
    facts: &[Facts],
    plan: Option<&Plan>,
) -> (Vec<Vec<usize>>, Vec<Diagnostic>) {
    let mut reasons = vec![];
    let idx = |id: &str| chain.nfs.iter().position(|n| n.id.0 == id);
    let reducible: Vec<bool> = chain
        .nfs
        .iter()
        .map(|inst| match reducible_nf(inst) {
            Ok(()) => true,
            Err(d) => {
                reasons.push(*d);
                false
            }
        })
        .collect();
    let preds = |i: usize| -> usize {
        chain
            .graph
            .neighbors_directed(chain.node_of(i), petgraph::Direction::Incoming)
            .count()
    };
    let facts_of = |i: usize| facts.iter().find(|f| f.nf == chain.nfs[i].id.0);
    let sharing_of = |i: usize| {
        plan.and_then(|p| p.nfs.iter().find(|n| n.nf == chain.nfs[i].id.0))
            .map(|n| n.sharing)
    };
    // The link a -> b joins a segment ending in `a` (members `seg`)?
    let joins = |seg: &[usize], b: usize, reasons: &mut Vec<Diagnostic>| -> bool {
        let a = seg[seg.len() - 1];
        let (na, nb) = (&chain.nfs[a], &chain.nfs[b]);
        if !reducible[a] || !reducible[b] || preds(b) != 1 {
            return false;
        }
        if na.sharing != nb.sharing {
            reasons.push(
                Diagnostic::note_diag(
                    "E0706",
                    format!(
                        "`{}` and `{}` are pinned to different state layouts; they are reduced apart",
                        na.id, nb.id
                    ),
                )
                .with_span_opt(nb.span.clone()),
            );
            return false;
        }
        let Some(plan) = plan.filter(|p| p.cores > 1) else {
            return true;
        };
        let members: Vec<usize> = seg.iter().copied().chain([b]).collect();
        let split = members
            .iter()
            .any(|&i| sharing_of(i) == Some(Sharing::SharedNothing));
        let parts: Option<Vec<Facts>> = members.iter().map(|&i| facts_of(i).cloned()).collect();
        let still_split = parts.is_some_and(|p| {
            let merged = Facts::merged("segment", &p, 1.0);
            nfc_placer::semantics::shared_nothing_blocker(
                &merged,
                &plan.rss.fields,
                plan.rss.symmetric,
            )
            .is_none()
        });
        if !split || still_split {
            return true;
        }
        reasons.push(
            Diagnostic::note_diag(
                "E0706",
                format!(
                    "`{}` and `{}` are reduced apart: the plan keeps state per core that one consolidated module would have to share under the plan's hash",
                    na.id, nb.id
                ),
            )
            .with_span_opt(nb.span.clone()),
        );
        false
    };
    let mut segments: Vec<Vec<usize>> = vec![];
    let mut seen = vec![false; chain.nfs.len()];
    for inst in chain.topo_order() {
        let Some(start) = idx(&inst.id.0) else {
            continue;
        };
        if seen[start] {
            continue;
        }
        let mut seg = vec![start];
        seen[start] = true;
        loop {
            let cur = seg[seg.len() - 1];
            let next = chain.successors(&chain.nfs[cur].id.0);
            let [(0, nid)] = next.as_slice() else { break };
            let Some(b) = idx(&nid.0) else { break };
            if seen[b] || !joins(&seg, b, &mut reasons) {
                break;
            }
            seen[b] = true;
            seg.push(b);
        }
        if seg.len() >= 2 {
            segments.push(seg);
        }
    }
    (segments, reasons)
}

/// An NF the reducer can take: C against nf.h, with C sources (E0702 else).
fn reducible_nf(inst: &NfInstance) -> Result<(), Box<Diagnostic>> {
    let (files, framework) = match driver::nf_sources(inst) {
        Ok(r) => r,
        Err(Failure::Diagnostics(mut d)) if !d.is_empty() => return Err(Box::new(d.remove(0))),
        Err(e) => {
            return Err(Box::new(
                Diagnostic::error("E0702", e.to_string()).with_span_opt(inst.span.clone()),
            ))
        }
    };
    if framework != Framework::NfcC {
        return Err(Box::new(
            Diagnostic::error(
                "E0702",
                format!(
                    "NF `{}` is {} code; the reducer needs C written against nfs/include/nf.h",
                    inst.id,
                    framework.name()
                ),
            )
            .with_span_opt(inst.span.clone()),
        ));
    }
    if !files
        .iter()
        .any(|f| f.extension().is_some_and(|e| e == "c"))
    {
        return Err(Box::new(
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
        ));
    }
    Ok(())
}

/// The chain with each reduced segment replaced by one NF running its
/// module: edges into the segment's first NF and out of its last NF's
/// ports are kept; the NF takes no configuration (it is compiled in), and
/// the operator's pin (alike for every member) carries over.
fn replace_segments(chain: &ChainSpec, done: &[Reduction], segments: &[Vec<usize>]) -> ChainSpec {
    use petgraph::visit::EdgeRef;
    // Old NF index -> new NF index.
    let mut map = vec![usize::MAX; chain.nfs.len()];
    let mut nfs = vec![];
    let seg_of = |i: usize| {
        done.iter()
            .zip(segments)
            .find(|(r, s)| s.contains(&i) && r.summary.nfs.len() == s.len())
    };
    for (i, inst) in chain.nfs.iter().enumerate() {
        match seg_of(i) {
            Some((r, seg)) => {
                if let Some(k) = nfs.iter().position(|n: &NfInstance| n.id.0 == r.id) {
                    map[i] = k;
                    continue;
                }
                let last = &chain.nfs[seg[seg.len() - 1]];
                map[i] = nfs.len();
                nfs.push(NfInstance {
                    id: nfc_core::chain::NfId(r.id.clone()),
                    source: NfSource::Source {
                        paths: vec![r.files.so.clone()],
                        framework: Framework::NfcC,
                    },
                    config: nfc_core::chain::ConfigValue::empty(),
                    ports: last.ports,
                    span: chain.nfs[seg[0]].span.clone(),
                    sharing: inst.sharing,
                });
            }
            None => {
                map[i] = nfs.len();
                nfs.push(inst.clone());
            }
        }
    }
    let mut graph = petgraph::graph::DiGraph::new();
    let nodes: Vec<_> = (0..nfs.len()).map(|i| graph.add_node(i)).collect();
    for e in chain.graph.edge_references() {
        let (a, b) = (chain.graph[e.source()], chain.graph[e.target()]);
        if map[a] != map[b] {
            graph.add_edge(nodes[map[a]], nodes[map[b]], *e.weight());
        }
    }
    ChainSpec {
        name: chain.name.clone(),
        path: chain.path.clone(),
        nfs,
        graph,
        resources: chain.resources.clone(),
        traffic: chain.traffic.clone(),
        targets: chain.targets.clone(),
    }
}

/// Run the original and the reduced chain over the same packets (the plan
/// proof's traffic: the chain's own, bidirectional flows and port reuse)
/// and require every input packet to leave both alike: through the same
/// port of the same (last) NF, byte for byte, or be dropped in both.
fn check_chains(
    ws: &Workspace,
    original: &ChainSpec,
    objects: &[(String, nfc_nfs::BuiltNf)],
    reduced: &ChainSpec,
    done: &[Reduction],
    packets: usize,
) -> Result<ChainCheck, Failure> {
    use flash_rt::offline::{ExecOptions, Executor};
    let start = std::time::Instant::now();
    let traffic = crate::plan_proof::proof_traffic(original, packets.max(1))?;
    let scratch = ws.dir.join("scratch");
    std::fs::create_dir_all(&scratch)
        .map_err(|e| Failure::io(format!("creating {}", scratch.display()), e))?;
    let opts = ExecOptions {
        collect_output: true,
        serial: true,
        scratch_dir: Some(scratch),
        ..ExecOptions::default()
    };
    let a_exec = driver::exec_chain(original, objects, None);
    let r_objects = driver::build_objects(reduced, ws)?;
    let b_exec = driver::exec_chain(reduced, &r_objects, None);
    let run = |exec: &flash_rt::offline::ExecChain, c: &ChainSpec| {
        Executor::new(exec, &opts)
            .and_then(|mut e| e.run(&traffic))
            .map_err(|e| driver::exec_failure(e, c))
    };
    let a = run(&a_exec, original)?;
    let b = run(&b_exec, reduced)?;
    // An exit names the original NF it leaves through: a segment's module
    // leaves through its last NF's ports.
    let exit_name = |exec: &flash_rt::offline::ExecChain, nf: u32| -> String {
        let id = exec.nfs.get(nf as usize).map_or("?", |n| n.id.as_str());
        done.iter()
            .find(|r| r.id == id)
            .and_then(|r| r.summary.nfs.last().cloned())
            .unwrap_or_else(|| id.to_string())
    };
    let exits = |run: &flash_rt::offline::ExecRun, exec| {
        let mut by: Vec<Vec<(String, u32, Vec<u8>)>> = vec![vec![]; traffic.len()];
        if let Some(out) = &run.output {
            for (k, t) in run.output_tags.iter().enumerate() {
                if let (Some(slot), Some(p)) = (by.get_mut(t.input as usize), out.get(k)) {
                    slot.push((exit_name(exec, t.nf), t.port, p.data.to_vec()));
                }
            }
        }
        by
    };
    let (ea, eb) = (exits(&a, &a_exec), exits(&b, &b_exec));
    if let Some(i) = (0..traffic.len()).find(|&i| ea[i] != eb[i]) {
        let say = |e: &[(String, u32, Vec<u8>)]| match e.first() {
            None => "was dropped".to_string(),
            Some((nf, port, bytes)) => format!(
                "left `{nf}.{port}` as {} ({} bytes)",
                crate::plan_proof::flow_name(bytes),
                bytes.len()
            ),
        };
        return Err(Failure::diag(
            Diagnostic::error(
                "E0705",
                format!(
                    "the reduced chain differs from the original on packet {i} ({}): the original {}, the reduced chain {}",
                    traffic
                        .get(i)
                        .map(|p| crate::plan_proof::flow_name(p.data))
                        .unwrap_or_default(),
                    say(&ea[i]),
                    say(&eb[i])
                ),
            )
            .with_hint("the reduction changed behaviour, so it is refused; please report the chain and config (--no-reduce builds it unreduced)"),
        ));
    }
    let left: u64 = ea.iter().map(|e| e.len() as u64).sum();
    Ok(ChainCheck {
        packets: traffic.len() as u64,
        exits: left,
        dropped: ea.iter().filter(|e| e.is_empty()).count() as u64,
        millis: start.elapsed().as_millis() as u64,
    })
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
/// says the chain stays unreduced. Auto: notes, nothing written.
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
                    let mut d = d.with_hint(hint);
                    d.severity = Severity::Error;
                    d
                })
                .collect(),
        )),
        ReduceMode::Auto => Ok(ReducedOutcome::Unreduced {
            report: None,
            diagnostics: reasons
                .into_iter()
                .map(|mut d| {
                    d.severity = Severity::Note;
                    d
                })
                .collect(),
        }),
        ReduceMode::BestEffort => {
            let diagnostics: Vec<Diagnostic> = reasons
                .into_iter()
                .map(|mut d| {
                    d.severity = Severity::Warning;
                    d.message = format!("{} (chain built unreduced)", d.message);
                    d
                })
                .collect();
            std::fs::create_dir_all(&opts.out_dir)
                .map_err(|e| Failure::io(format!("creating {}", opts.out_dir.display()), e))?;
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
                report: Some(report),
                diagnostics,
            })
        }
    }
}

/// The chain's NFs in packet order when the chain is a line of C NFs;
/// otherwise every reason it is not (E0701 topology, E0702 framework).
fn reducible_order(chain: &ChainSpec) -> Result<Vec<&NfInstance>, Vec<Diagnostic>> {
    let mut reasons: Vec<Diagnostic> = chain
        .nfs
        .iter()
        .filter_map(|inst| reducible_nf(inst).err().map(|d| *d))
        .collect();
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
/// has one output port, so a segment is cut after each NF with more (E0701,
/// a reason). Loading each NF also runs its nf_init, so a config the NF
/// rejects is reported here (E0703), before any pass runs; then the whole
/// segment is refused.
fn split_at_ports(
    ws: &Workspace,
    chain: &ChainSpec,
    seg: &[usize],
    objects: &[(String, nfc_nfs::BuiltNf)],
) -> Result<Vec<Vec<usize>>, Vec<Diagnostic>> {
    let scratch = ws.dir.join("scratch");
    if let Err(e) = std::fs::create_dir_all(&scratch) {
        return Err(vec![Diagnostic::error(
            "E0700",
            format!("cannot create {}: {e}", scratch.display()),
        )]);
    }
    let mut errors = vec![];
    let mut cuts = vec![];
    let mut parts = vec![vec![]];
    for (k, &i) in seg.iter().enumerate() {
        let inst = &chain.nfs[i];
        parts.last_mut().expect("one part").push(i);
        let Some((_, built)) = objects.iter().find(|(id, _)| *id == inst.id.0) else {
            continue;
        };
        match flash_rt::offline::abi::NfLibrary::load(
            &inst.id.0,
            &built.so,
            &inst.config.flatten(),
            &scratch,
        ) {
            Ok(lib) if k + 1 < seg.len() && lib.n_ports > 1 => {
                cuts.push(
                    Diagnostic::error(
                        "E0701",
                        format!(
                            "NF `{}` has {} output ports but is not the last NF; the reduced module would send every port to `{}`",
                            inst.id,
                            lib.n_ports,
                            chain.nfs[seg[k + 1]].id
                        ),
                    )
                    .with_span_opt(inst.span.clone()),
                );
                parts.push(vec![]);
            }
            Ok(_) => {}
            // Only nf_init's verdict is about the configuration; anything
            // else is the NF's object not following nf.h.
            Err(
                e @ (flash_rt::offline::ExecError::Init { .. }
                | flash_rt::offline::ExecError::BadConfig { .. }),
            ) => errors.push(
                Diagnostic::error("E0703", e.to_string())
                    .with_span_opt(inst.span.clone())
                    .with_hint("fix this NF's `config:` in the chain file (see the NF's configs/default.yaml)"),
            ),
            Err(e) => errors.push(
                Diagnostic::error("E0700", format!("cannot reduce the chain: {e}"))
                    .with_span_opt(inst.span.clone())
                    .with_hint("the NF must implement the nf.h ABI (nf_describe, nf_init, nf_state_size, nf_process) to be reduced or run"),
            ),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    if parts.iter().all(|p| p.len() < 2) && !cuts.is_empty() {
        return Err(cuts);
    }
    Ok(parts)
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

/// A chain file for the reduced chain, so `nfc run` (and the flash target)
/// can run it: each segment is one NF naming its module (its configuration
/// is compiled in), the other NFs as written; a pcap traffic source is kept.
fn write_chain_file(
    original: &ChainSpec,
    reduced: &ChainSpec,
    out: &Path,
) -> Result<PathBuf, Failure> {
    use std::fmt::Write;
    let ids: Vec<String> = original
        .topo_order()
        .iter()
        .map(|n| n.id.0.clone())
        .collect();
    let mut text = format!(
        "# The chain `{}` ({}) with its linear segments reduced by `nfc build`.\n\
         # A reduced NF's configuration is compiled in, so it takes no `config:`.\n\
         name: {}\nnfs:\n",
        original.name,
        ids.join(" → "),
        yaml_str(&format!("{}-reduced", original.name)),
    );
    let abs = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    for n in &reduced.nfs {
        let _ = writeln!(text, "  - id: {}", yaml_str(&n.id.0));
        match &n.source {
            NfSource::Builtin { name } => {
                let _ = writeln!(text, "    nf: {}", yaml_str(name));
            }
            NfSource::Source { paths, framework } => {
                let paths: Vec<String> = paths
                    .iter()
                    .map(|p| yaml_str(&abs(p).display().to_string()))
                    .collect();
                let _ = writeln!(text, "    source: [{}]", paths.join(", "));
                if *framework != Framework::NfcC {
                    let _ = writeln!(text, "    framework: {}", framework.name());
                }
            }
        }
        if n.config != nfc_core::chain::ConfigValue::empty() {
            let _ = writeln!(text, "    config: {}", config_yaml(&n.config));
        }
        if let Some(s) = n.sharing.and_then(|s| serde_json::to_value(s).ok()) {
            let _ = writeln!(text, "    sharing: {}", s.as_str().unwrap_or("shared"));
        }
    }
    let edges = reduced.dump().edges;
    if !edges.is_empty() {
        text.push_str("edges:\n");
        for (from, port, to) in edges {
            let _ = writeln!(
                text,
                "  - {{from: {}, port: {port}, to: {}}}",
                yaml_str(&from),
                yaml_str(&to)
            );
        }
    }
    let _ = writeln!(text, "resources:\n  cores: {}", reduced.resources.cores);
    if let Traffic::Pcap { path } = &original.traffic {
        let _ = writeln!(
            text,
            "traffic:\n  pcap: {}",
            yaml_str(&abs(path).display().to_string())
        );
    }
    let path = out.join(format!("{ARTIFACT_NAME}.chain.yaml"));
    std::fs::write(&path, text)
        .map_err(|e| Failure::io(format!("writing {}", path.display()), e))?;
    Ok(path)
}

/// A configuration value in YAML flow style.
fn config_yaml(v: &nfc_core::chain::ConfigValue) -> String {
    use nfc_core::chain::ConfigValue as V;
    match v {
        V::Scalar(s) => yaml_str(s),
        V::List(items) => format!(
            "[{}]",
            items.iter().map(config_yaml).collect::<Vec<_>>().join(", ")
        ),
        V::Map(kv) => format!(
            "{{{}}}",
            kv.iter()
                .map(|(k, v)| format!("{}: {}", yaml_str(k), config_yaml(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
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
