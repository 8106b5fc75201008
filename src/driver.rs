//! The driver: calls nfc's stages in order over plain data. Each function
//! takes typed input and returns typed output (or diagnostics), so callers
//! can run one stage, all of them, or loop (e.g. re-place after a
//! prediction) without any stage knowing about another.

use crate::Failure;
use nfc_core::chain::{parse_chain, parse_chain_file, ChainSpec};
use nfc_core::diag::has_errors;
use nfc_core::Diagnostic;
use std::path::Path;

/// Names of the built-in NFs (from `nfs/`).
pub fn builtin_names() -> Vec<String> {
    nfc_nfs::catalog().into_iter().map(|nf| nf.name).collect()
}

/// Load and validate a chain file. Warnings come back with the spec.
pub fn load_chain(path: &Path) -> Result<(ChainSpec, Vec<Diagnostic>), Failure> {
    let names = builtin_names();
    let (spec, diags) = parse_chain_file(path, &names);
    match spec {
        Some(spec) if !has_errors(&diags) => Ok((spec, diags)),
        _ => Err(Failure::Diagnostics(diags)),
    }
}

/// Validate chain text (relative paths resolve against the current directory).
pub fn parse_chain_text(text: &str, file: &str) -> Result<ChainSpec, Failure> {
    let names = builtin_names();
    let (spec, diags) = parse_chain(text, file, Path::new("."), &names);
    match spec {
        Some(spec) if !has_errors(&diags) => Ok(spec),
        _ => Err(Failure::Diagnostics(diags)),
    }
}

use nfc_core::chain::{Framework, NfInstance, NfSource};
use std::path::PathBuf;

/// Where nfc keeps its caches and build outputs (`.nfc/` in the project).
#[derive(Debug, Clone)]
pub struct Workspace {
    pub dir: PathBuf,
}

impl Workspace {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Workspace { dir: dir.into() }
    }
    pub fn build_dir(&self) -> PathBuf {
        self.dir.join("build")
    }
    pub fn facts_cache(&self) -> PathBuf {
        self.dir.join("facts")
    }
}

/// The source files of an NF instance: a built-in's sources, or the user's
/// files with directories expanded to the C/C++ files in them.
pub fn nf_sources(inst: &NfInstance) -> Result<(Vec<PathBuf>, Framework), Failure> {
    match &inst.source {
        NfSource::Builtin { name } => {
            let nf = nfc_nfs::builtin(name).ok_or_else(|| {
                Failure::diag(
                    Diagnostic::error("E0011", format!("unknown NF `{name}`"))
                        .with_span_opt(inst.span.clone()),
                )
            })?;
            Ok((nf.sources.clone(), Framework::NfcC))
        }
        NfSource::Source { paths, framework } => {
            let mut files = vec![];
            for p in paths {
                if p.is_dir() {
                    let rd = std::fs::read_dir(p)
                        .map_err(|e| Failure::io(format!("reading {}", p.display()), e))?;
                    let mut found: Vec<PathBuf> = rd
                        .filter_map(|e| e.ok().map(|e| e.path()))
                        .filter(|f| {
                            f.extension().and_then(|e| e.to_str()).is_some_and(|e| {
                                ["c", "cc", "cpp", "cxx", "h", "hh", "hpp"].contains(&e)
                            })
                        })
                        .collect();
                    found.sort();
                    files.extend(found);
                } else {
                    files.push(p.clone());
                }
            }
            Ok((files, *framework))
        }
    }
}

/// Build every NF of the chain into a shared object (cached by source hash).
/// Only NFs written against nf.h can be built; others get a diagnostic.
pub fn build_objects(
    chain: &ChainSpec,
    ws: &Workspace,
) -> Result<Vec<(String, nfc_nfs::BuiltNf)>, Failure> {
    let mut out = vec![];
    let mut diags = vec![];
    for inst in &chain.nfs {
        let (files, framework) = nf_sources(inst)?;
        if framework != Framework::NfcC {
            diags.push(
                Diagnostic::error("E0101", format!("NF `{}` is {} code, which nfc can analyze but not build or run", inst.id, framework.name()))
                    .with_span_opt(inst.span.clone())
                    .with_hint("only NFs written against nfs/include/nf.h (framework: nfc-c) run in the executor and flash-rt"),
            );
            continue;
        }
        // A prebuilt nf.h shared object (e.g. the module `nfc build --emit
        // reduced` writes, named by its reduced.chain.yaml) runs as is.
        if let [so] = files.as_slice() {
            if so.extension().is_some_and(|e| e == "so") {
                out.push((
                    inst.id.0.clone(),
                    nfc_nfs::BuiltNf {
                        name: inst.id.0.clone(),
                        so: so.clone(),
                        ll: so.with_extension("ll"),
                    },
                ));
                continue;
            }
        }
        let c_files: Vec<PathBuf> = files
            .into_iter()
            .filter(|f| f.extension().is_some_and(|e| e == "c"))
            .collect();
        let opts = nfc_nfs::BuildOptions {
            out_dir: ws.build_dir(),
            sanitize: false,
            extra_cflags: vec![],
        };
        match nfc_nfs::build(&inst.id.0, &c_files, &opts) {
            Ok(b) => out.push((inst.id.0.clone(), b)),
            Err(e) => diags.push(
                Diagnostic::error("E0102", format!("NF `{}` does not build: {e}", inst.id))
                    .with_span_opt(inst.span.clone())
                    .with_hint("the NF must compile with clang-19 against nfs/include/nf.h"),
            ),
        }
    }
    if has_errors(&diags) {
        return Err(Failure::Diagnostics(diags));
    }
    Ok(out)
}

/// The executable form of a chain for the reference executor.
pub fn exec_chain(
    chain: &ChainSpec,
    objects: &[(String, nfc_nfs::BuiltNf)],
    plan: Option<&nfc_core::Plan>,
) -> flash_rt::offline::ExecChain {
    flash_rt::offline::ExecChain::from_spec(
        chain,
        |inst| {
            objects
                .iter()
                .find(|(id, _)| *id == inst.id.0)
                .map(|(_, b)| b.so.clone())
                .unwrap_or_default()
        },
        plan,
    )
}

/// Turn an executor error into a diagnostic when it is about the input
/// (a malformed pcap, an NF rejecting its config), else an internal failure.
pub fn exec_failure(e: flash_rt::offline::ExecError, chain: &ChainSpec) -> Failure {
    use flash_rt::offline::ExecError as E;
    let msg = e.to_string();
    match &e {
        E::Pcap { .. } | E::Output { .. } => Failure::diag(
            Diagnostic::error("E0200", msg)
                .with_hint("pcap files must be classic libpcap captures with Ethernet link type"),
        ),
        E::Init { nf, .. } | E::BadConfig { nf, .. } => Failure::diag(
            Diagnostic::error("E0201", msg)
                .with_span_opt(chain.nf(nf).and_then(|n| n.span.clone()))
                .with_hint(
                    "fix this NF's `config:` in the chain file (see the NF's configs/default.yaml)",
                ),
        ),
        _ => Failure::Internal {
            stage: "run",
            message: msg,
        },
    }
}

/// Run a chain over a pcap with the reference executor.
pub fn run_pcap(
    chain: &ChainSpec,
    ws: &Workspace,
    input: &Path,
    output: Option<&Path>,
    plan: Option<&nfc_core::Plan>,
    workers: Option<u32>,
) -> Result<flash_rt::offline::ExecReport, Failure> {
    let objects = build_objects(chain, ws)?;
    let exec = exec_chain(chain, &objects, plan);
    let mut opts = plan
        .map(flash_rt::offline::ExecOptions::from_plan)
        .unwrap_or_default();
    if let Some(w) = workers {
        opts.workers = w.max(1);
    }
    opts.scratch_dir = Some(ws.dir.join("scratch"));
    std::fs::create_dir_all(ws.dir.join("scratch"))
        .map_err(|e| Failure::io("creating the scratch directory", e))?;
    flash_rt::offline::run_pcap(&exec, input, output, &opts).map_err(|e| exec_failure(e, chain))
}

// ------------------------------------------------------------------ analyze

pub use nfc_analyzer::{AnalyzeOptions, BackendChoice, LlmOptions};
use nfc_core::Facts;

/// Analyze one NF from files or directories (a directory is one NF).
pub fn analyze_paths(
    name: Option<&str>,
    paths: &[PathBuf],
    opts: &AnalyzeOptions,
) -> Result<(Facts, Vec<Diagnostic>), Failure> {
    let input = nfc_analyzer::input_from_paths(name, paths).map_err(analyze_failure)?;
    nfc_analyzer::analyze(&input, opts).map_err(analyze_failure)
}

fn analyze_failure(e: nfc_analyzer::AnalyzeError) -> Failure {
    Failure::diag(
        Diagnostic::error("E0300", e.to_string())
            .with_hint("check that the NF's source files exist and are readable"),
    )
}

/// Analyze every NF of a chain; facts carry the instance id in `nf`.
pub fn analyze_chain(
    chain: &ChainSpec,
    opts: &AnalyzeOptions,
) -> Result<(Vec<Facts>, Vec<Diagnostic>), Failure> {
    let mut all = vec![];
    let mut diags = vec![];
    for inst in &chain.nfs {
        let (files, framework) = nf_sources(inst)?;
        // A prebuilt shared object (e.g. the reducer's consolidated module)
        // has no source to read; analysing its bytes as C would only produce
        // a misleading "no entry point".
        if !files.is_empty() && files.iter().all(|f| is_shared_object(f)) {
            return Err(Failure::diag(
                Diagnostic::error(
                    "E0504",
                    format!(
                        "NF `{}` is only a shared object ({}); nfc analyses NF sources, not machine code",
                        inst.id.0,
                        files[0].display()
                    ),
                )
                .with_span_opt(inst.span.clone())
                .with_hint(
                    "analyse and place the original chain (the reduced module keeps its NFs' flow keys and sharing needs), or give the NF's C sources",
                ),
            ));
        }
        let input = nfc_analyzer::AnalysisInput {
            name: inst.id.0.clone(),
            files,
            framework: Some(framework),
        };
        let (mut facts, d) = nfc_analyzer::analyze(&input, opts).map_err(analyze_failure)?;
        facts.nf = inst.id.0.clone();
        // Without a per-packet entry point the "facts" describe nothing the
        // NF does (a garbage file reads as stateless); report none, so the
        // placer refuses to guess rather than drop a lock it needs.
        let no_entry_point = d.iter().any(|d| d.code == NO_ENTRY_POINT);
        diags.extend(d);
        if !no_entry_point {
            all.push(facts);
        }
    }
    Ok((all, diags))
}

/// The analyzer's code for "no per-packet entry point found".
const NO_ENTRY_POINT: &str = "A0103";

fn is_shared_object(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "so")
}

// -------------------------------------------------------------------- place

pub use nfc_placer::{PlaceOptions, TrafficProfile};

/// Most packets the placer looks at to estimate load balance.
const PROFILE_PACKETS: u64 = 200_000;

/// The traffic profile the placer balances: header tuples of the chain's pcap
/// or of its synthetic traffic (capped at 200k packets).
pub fn traffic_profile(chain: &ChainSpec) -> Result<TrafficProfile, Failure> {
    use nfc_core::chain::Traffic;
    let packets = match &chain.traffic {
        Traffic::Pcap { path } => flash_rt::trace::pcap::read_pcap(path).map_err(|e| {
            Failure::diag(
                Diagnostic::error("E0200", format!("{}: {e}", path.display()))
                    .with_hint("the traffic pcap must be a classic libpcap capture"),
            )
        })?,
        Traffic::Synthetic(spec) => {
            let mut spec = spec.clone();
            spec.packets = spec.packets.min(PROFILE_PACKETS);
            flash_rt::trace::generate_packets(&spec)
                .map_err(|e| {
                    Failure::diag(
                        Diagnostic::error("E0040", e.to_string())
                            .with_hint("fix `traffic.synthetic` in the chain file"),
                    )
                })?
                .0
        }
    };
    let headers = packets
        .iter()
        .take(PROFILE_PACKETS as usize)
        .map(|p| nfc_placer::traffic::PacketHeader::from_frame(p.data));
    Ok(TrafficProfile::from_packets(headers))
}

/// The pipeline's analyze and place stages without reduction: facts (with
/// `facts_override` replacing the analyzer's for the NFs it names), the plan
/// the proof accepted, every diagnostic and the proof summary. What `nfc run
/// --workers N` places the (unreduced) reference chain with.
pub fn analyze_place_prove(
    chain: &ChainSpec,
    opts: &AnalyzeOptions,
    ws: &Workspace,
    proof: &crate::plan_proof::ProofOptions,
    facts_override: &[Facts],
) -> Result<
    (
        Vec<Facts>,
        nfc_core::Plan,
        Vec<Diagnostic>,
        crate::plan_proof::ProofSummary,
    ),
    Failure,
> {
    use crate::pipeline::{Pipeline, PipelineOptions, ReducePolicy};
    let mut p = Pipeline::new(PipelineOptions {
        workspace: ws.clone(),
        analyze: opts.clone(),
        reduce: ReducePolicy::Off,
        proof: proof.clone(),
        facts_override: facts_override.to_vec(),
        ..PipelineOptions::new(&ws.dir, ws.dir.join("out"))
    });
    p.set_chain(chain.clone());
    let placement = p.place()?.clone();
    let facts = p.analyze()?.to_vec();
    Ok((
        facts,
        placement.plan,
        p.diagnostics().to_vec(),
        placement.proof,
    ))
}

/// Place the chain: RSS fields, Toeplitz key, RETA, and sharing per NF.
/// The chain's own placement demands (`sharing:` pins, `nic.symmetric`) are
/// added to `opts`; an NF without facts is placed only when pinned `shared`.
pub fn place_chain(
    chain: &ChainSpec,
    facts: &[Facts],
    traffic: &TrafficProfile,
    opts: &PlaceOptions,
) -> Result<(nfc_core::Plan, Vec<Diagnostic>), Failure> {
    let mut opts = opts.clone();
    for nf in &chain.nfs {
        if let Some(pin) = nf.sharing {
            opts.pins.retain(|(id, _)| *id != nf.id.0);
            opts.pins.push((nf.id.0.clone(), pin));
        }
    }
    // An NF the analyzer could not read is still placeable when the operator
    // pins it shared: a stateful NF with no known key is never split.
    let mut facts = facts.to_vec();
    for nf in &chain.nfs {
        let pinned_shared = nf.sharing == Some(nfc_core::plan::Sharing::Shared);
        if pinned_shared && !facts.iter().any(|f| f.nf == nf.id.0) {
            let mut unknown = Facts::stateless(nf.id.0.clone());
            unknown.stateful = true;
            unknown.confidence = 0.0;
            facts.push(unknown);
        }
    }
    let nfs = nfc_placer::facts_for_chain(chain, &facts)
        .map_err(|e| place_failure(e, &chain.resources, Some(chain)))?;
    place_with(&nfs, &chain.resources, traffic, &opts, Some(chain))
}

/// Place NFs given as (id, facts) on `resources`; the NIC's RSS input mode
/// and symmetry demand come from the resources, overriding `opts`.
pub fn place_nfs(
    nfs: &[(String, Facts)],
    resources: &nfc_core::chain::Resources,
    traffic: &TrafficProfile,
    opts: &PlaceOptions,
) -> Result<(nfc_core::Plan, Vec<Diagnostic>), Failure> {
    place_with(nfs, resources, traffic, opts, None)
}

fn place_with(
    nfs: &[(String, Facts)],
    resources: &nfc_core::chain::Resources,
    traffic: &TrafficProfile,
    opts: &PlaceOptions,
    chain: Option<&ChainSpec>,
) -> Result<(nfc_core::Plan, Vec<Diagnostic>), Failure> {
    let mut opts = opts.clone();
    opts.rss_input = match resources.nic.rss_input {
        nfc_core::chain::RssInput::FieldSelect => nfc_placer::RssInputMode::FieldSelect,
        nfc_core::chain::RssInput::Tuple => nfc_placer::RssInputMode::Tuple,
    };
    use nfc_core::chain::SymmetryDemand;
    opts.symmetry = match resources.nic.symmetric {
        SymmetryDemand::Auto => opts.symmetry,
        SymmetryDemand::Required => nfc_placer::SymmetryPolicy::Require,
        SymmetryDemand::Forbidden => nfc_placer::SymmetryPolicy::Forbid,
    };
    nfc_placer::place(nfs, resources, traffic, &opts)
        .map_err(|e| place_failure(e, resources, chain))
}

/// Placement failures as located diagnostics: E0400 the NIC's field sets,
/// E0401 symmetry, E0402 no hash keeps the pinned NFs shared-nothing, E0403
/// NFs without facts, E0404 anything else. NF-level failures point at the
/// (first) NF, NIC-level ones at `resources.nic`.
fn place_failure(
    e: nfc_placer::PlaceError,
    resources: &nfc_core::chain::Resources,
    chain: Option<&ChainSpec>,
) -> Failure {
    use nfc_placer::PlaceError as E;
    let nf_span = |id: Option<&String>| {
        let id = id?;
        chain?.nfs.iter().find(|n| &n.id.0 == id)?.span.clone()
    };
    let nic_span = resources.nic_span.clone();
    let (code, hint, span) = match &e {
        E::NoUsableFieldSet { .. } => (
            "E0400",
            "list field sets the NIC can hash in `resources.nic.hash_fields` (addresses or ports)",
            nic_span,
        ),
        E::ConflictingSymmetry(_) => (
            "E0401",
            "relax `resources.nic.symmetric`, list a mirror-closed field set (e.g. [src_ip, dst_ip]), or unpin the NF",
            nic_span,
        ),
        E::Infeasible { pinned, .. } => (
            "E0402",
            "pin fewer NFs `shared-nothing`, or give the NIC a field set inside every pinned NF's flow key",
            nf_span(pinned.first()),
        ),
        E::MissingFacts { nfs } => (
            "E0403",
            "point `source:` at the NF's per-packet code (nf_process, a Click element's simple_action/push), or pin it `sharing: shared`",
            nf_span(nfs.first()),
        ),
        E::SemanticViolation { nf, .. } => (
            "E0404",
            "this is a placer bug: please report it with the chain file",
            nf_span(Some(nf)),
        ),
        _ => (
            "E0404",
            "see `nfc explain` for the candidates the placer considered",
            None,
        ),
    };
    // The infeasibility detail names every candidate hash; keep the first
    // reason in the message and the rest as notes.
    let (message, notes) = match &e {
        E::Infeasible { pinned, detail } => (
            format!(
                "no RSS hash keeps {} shared-nothing together: {}",
                pinned.join(", "),
                detail
                    .first()
                    .map(String::as_str)
                    .unwrap_or("no candidate hash")
            ),
            detail.iter().skip(1).cloned().collect(),
        ),
        _ => (e.to_string(), vec![]),
    };
    let mut d = Diagnostic::error(code, message)
        .with_hint(hint)
        .with_span_opt(span);
    d.notes = notes;
    Failure::diag(d)
}

/// Human explanation of a plan.
pub fn explain_plan(plan: &nfc_core::Plan) -> String {
    nfc_placer::explain(plan)
}

// ------------------------------------------------------------------- reduce

pub use crate::reduce::{
    reduce_chain, Progress as ReduceProgress, ReduceMode, ReduceStageOptions, ReducedOutcome,
};

/// Names of the reducer's passes, in pipeline order (for `--dump-after`).
pub fn reduce_pass_names() -> Vec<&'static str> {
    nfc_reducer::pass_names()
}
