//! The compilation pipeline: one object that runs nfc's stages in order —
//! load → analyze → reduce → place (and prove) → predict → emit — keeps each
//! stage's output, and verifies it before the next stage sees it (the model
//! is Cranelift's `Context`). `nfc build`, `nfc explain` and `nfc run` are
//! thin callers of it, so what `explain` prints is what `build` decided.
//!
//! Each stage is a method taking the previous stages' outputs from `self`
//! and returning a reference to its own; calling a stage runs the ones it
//! needs first. Verification after each step:
//!
//! - analyze: the facts are sane (one record per NF of the chain, keys
//!   sorted and only on stateful NFs, confidence in 0..=1);
//! - reduce: every reduced module passed the LLVM verifier and the
//!   reducer's differential check, and the reduced chain forwards exactly
//!   what the original chain does on the plan proof's traffic (E0705 else);
//! - place: the plan is proven by differential execution
//!   ([`crate::plan_proof`]) for the chain that is deployed;
//! - emit: the flash deployment is loaded back and validated by flash-rt;
//!   the FastClick configuration uses only upstream element classes or the
//!   ones in the package written beside it.
//!
//! What is placed and deployed is the *reduced* chain when the chain (or a
//! linear segment of a DAG) could be reduced: each segment runs as one NF
//! whose facts are derived from its members' facts ([`Facts::merged`]).
//!
//! ```
//! use nfc::pipeline::{Pipeline, PipelineOptions, ReduceRecord, Target};
//! use std::path::Path;
//!
//! let dir = tempfile::tempdir().unwrap();
//! let chain = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/ids-firewall.yaml");
//! let mut p = Pipeline::new(PipelineOptions::new(dir.path().join(".nfc"), dir.path().join("out")));
//! p.load(&chain)?;
//! let plan = p.place()?.plan.clone();
//! // The firewall and the IDS run as one reduced module, and that is what was placed.
//! assert!(matches!(p.reduction(), Some(ReduceRecord::Reduced(_))));
//! assert_eq!(p.deployed_chain()?.nfs.len(), 1);
//! assert_eq!(plan.nfs.len(), 1);
//! let written = p.emit(Target::Flash)?;
//! assert!(written.files.iter().any(|f| f.ends_with("deployment.json")));
//! # Ok::<(), nfc::Failure>(())
//! ```

use crate::driver::{self, AnalyzeOptions, Workspace};
use crate::plan_proof::{ProofOptions, ProofSummary};
use crate::reduce::{ReduceMode, ReduceStageOptions, ReducedChainOutcome, ReducedOutcome};
use crate::Failure;
use nfc_core::chain::ChainSpec;
use nfc_core::diag::has_errors;
use nfc_core::{Diagnostic, Facts, Plan};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// The stages, in order (also the names `--emit` takes for their outputs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stage {
    Load,
    Analyze,
    Reduce,
    Place,
    Predict,
    Emit,
}

/// What to emit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Target {
    /// A FastClick configuration, its element package and RSS programming.
    Fastclick,
    /// A flash-rt deployment and Kubernetes manifests.
    Flash,
    /// A Netronome Agilio offload plan: state placement and a Micro-C
    /// placement header (docs/targets/agilio.md).
    Agilio,
}

/// Whether and how the pipeline reduces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReducePolicy {
    /// Place and deploy the original NFs.
    Off,
    /// Reduce what can be reduced in this mode (see [`ReduceMode`]).
    On(ReduceMode),
}

/// Everything the stages are configured with.
#[derive(Debug, Clone)]
pub struct PipelineOptions {
    /// Caches and build outputs (`.nfc/`).
    pub workspace: Workspace,
    /// Where reduced modules and emitted targets are written.
    pub out_dir: PathBuf,
    pub analyze: AnalyzeOptions,
    pub reduce: ReducePolicy,
    /// The reducer's knobs (`out_dir` and `mode` are set from the above).
    pub reduce_stage: ReduceStageOptions,
    pub proof: ProofOptions,
    /// Facts that replace the analyzer's for the NFs they name (`--facts`).
    pub facts_override: Vec<Facts>,
    /// The predict stage: the `nfc` executable it runs under callgrind
    /// (None: the stage is not available) and the cost model (None: the
    /// shipped one). See `src/prediction.rs`.
    pub predict_exe: Option<PathBuf>,
    pub cost_model: Option<PathBuf>,
}

impl PipelineOptions {
    /// Defaults: reduce automatically, prove strictly, cache under `workspace`.
    pub fn new(workspace: impl Into<PathBuf>, out_dir: impl Into<PathBuf>) -> Self {
        let workspace = Workspace::new(workspace);
        PipelineOptions {
            analyze: AnalyzeOptions {
                cache_dir: Some(workspace.facts_cache()),
                ..AnalyzeOptions::default()
            },
            workspace,
            out_dir: out_dir.into(),
            reduce: ReducePolicy::On(ReduceMode::Auto),
            reduce_stage: ReduceStageOptions::default(),
            proof: ProofOptions::default(),
            facts_override: vec![],
            predict_exe: None,
            cost_model: None,
        }
    }
}

/// The reduce stage's record: what was reduced, or why nothing was.
#[derive(Debug, Clone)]
pub enum ReduceRecord {
    /// `--no-reduce`.
    Off,
    Reduced(Box<ReducedChainOutcome>),
    Unreduced {
        report: Option<PathBuf>,
        reasons: Vec<Diagnostic>,
    },
}

/// The place stage's output: the plan for the deployed chain, proven.
#[derive(Debug, Clone)]
pub struct Placement {
    pub plan: Plan,
    pub proof: ProofSummary,
}

/// Files a target wrote, and notes for the operator.
#[derive(Debug, Clone, Default)]
pub struct Emitted {
    pub files: Vec<PathBuf>,
    pub notes: Vec<String>,
}

/// The pipeline: stage outputs so far, and every diagnostic they produced.
#[derive(Debug)]
pub struct Pipeline {
    pub opts: PipelineOptions,
    chain: Option<ChainSpec>,
    facts: Option<Vec<Facts>>,
    reduced: Option<ReduceRecord>,
    /// Facts of the deployed chain (the reduced one's derived).
    deployed_facts: Option<Vec<Facts>>,
    placement: Option<Placement>,
    diagnostics: Vec<Diagnostic>,
    chain_path: Option<PathBuf>,
    prediction: Option<nfc_core::prediction::Prediction>,
}

impl Pipeline {
    pub fn new(opts: PipelineOptions) -> Self {
        Pipeline {
            opts,
            chain: None,
            facts: None,
            reduced: None,
            deployed_facts: None,
            placement: None,
            diagnostics: vec![],
            chain_path: None,
            prediction: None,
        }
    }

    /// Load and validate a chain file.
    pub fn load(&mut self, path: &Path) -> Result<&ChainSpec, Failure> {
        let (chain, diags) = driver::load_chain(path)?;
        self.diagnostics.extend(diags);
        self.set_chain(chain);
        self.chain_path = Some(path.to_path_buf());
        self.chain()
    }

    /// Start from a chain validated elsewhere (e.g. [`driver::parse_chain_text`]).
    pub fn set_chain(&mut self, chain: ChainSpec) -> &ChainSpec {
        *self = Pipeline::new(self.opts.clone());
        self.chain.insert(chain)
    }

    /// The loaded chain (the original, as written).
    pub fn chain(&self) -> Result<&ChainSpec, Failure> {
        self.chain.as_ref().ok_or(Failure::Internal {
            stage: "pipeline",
            message: "no chain loaded".into(),
        })
    }

    /// Warnings and notes of every stage run so far.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// Analyze every NF of the original chain (the operator's `--facts`
    /// replace the analyzer's for the NFs they name), then check the facts.
    pub fn analyze(&mut self) -> Result<&[Facts], Failure> {
        if self.facts.is_none() {
            let chain = self.chain()?.clone();
            let (facts, diags) =
                analyze_with_override(&chain, &self.opts.analyze, &self.opts.facts_override)?;
            verify_facts(&chain, &facts)?;
            self.diagnostics.extend(diags);
            self.facts = Some(facts);
        }
        Ok(self.facts.as_deref().unwrap_or_default())
    }

    /// Reduce each maximal linear segment (see [`crate::reduce`]). The
    /// segments are chosen against a placement of the original chain, so a
    /// reduction never merges what that plan keeps per core into state one
    /// module must share. `progress` hears about the long steps.
    pub fn reduce(
        &mut self,
        progress: &mut dyn FnMut(crate::reduce::Progress),
    ) -> Result<&ReduceRecord, Failure> {
        if self.reduced.is_none() {
            let record = match self.opts.reduce {
                ReducePolicy::Off => ReduceRecord::Off,
                ReducePolicy::On(mode) => {
                    let chain = self.chain()?.clone();
                    let facts = self.analyze()?.to_vec();
                    // Its diagnostics come again when the deployed chain is placed.
                    let pre = if chain.resources.cores > 1 {
                        place(&chain, &facts).ok().map(|(plan, _)| plan)
                    } else {
                        None
                    };
                    let ropts = ReduceStageOptions {
                        out_dir: self.opts.out_dir.clone(),
                        mode,
                        ..self.opts.reduce_stage.clone()
                    };
                    let outcome = crate::reduce::reduce_chain(
                        &self.opts.workspace,
                        &chain,
                        &facts,
                        pre.as_ref(),
                        &ropts,
                        progress,
                    )?;
                    match outcome {
                        ReducedOutcome::Reduced(r) => {
                            self.diagnostics.extend(r.diagnostics.iter().cloned());
                            self.diagnostics.extend(
                                r.not_reduced
                                    .iter()
                                    .filter(|d| {
                                        mode != ReduceMode::Auto
                                            || d.severity != nfc_core::Severity::Note
                                    })
                                    .cloned(),
                            );
                            ReduceRecord::Reduced(r)
                        }
                        ReducedOutcome::Unreduced {
                            report,
                            diagnostics,
                        } => {
                            // Auto mode keeps its reasons for `explain`.
                            if mode != ReduceMode::Auto {
                                self.diagnostics.extend(diagnostics.iter().cloned());
                            }
                            ReduceRecord::Unreduced {
                                report,
                                reasons: diagnostics,
                            }
                        }
                    }
                }
            };
            self.reduced = Some(record);
        }
        Ok(self.reduced.as_ref().expect("set above"))
    }

    /// The reduce stage's record, if it ran.
    pub fn reduction(&self) -> Option<&ReduceRecord> {
        self.reduced.as_ref()
    }

    /// The chain later stages place and deploy: the reduced chain when
    /// anything was reduced, else the original.
    pub fn deployed_chain(&self) -> Result<&ChainSpec, Failure> {
        match &self.reduced {
            Some(ReduceRecord::Reduced(r)) => Ok(&r.chain),
            _ => self.chain(),
        }
    }

    /// Facts of the deployed chain: each reduced NF's derived from its
    /// members' with [`Facts::merged`] (cost scaled by the module's
    /// instructions after/before), the others as analysed.
    pub fn deployed_facts(&mut self) -> Result<&[Facts], Failure> {
        if self.deployed_facts.is_none() {
            let facts = self.analyze()?.to_vec();
            self.reduce(&mut |_| {})?;
            let derived = match &self.reduced {
                Some(ReduceRecord::Reduced(r)) => r
                    .chain
                    .nfs
                    .iter()
                    .filter_map(|n| match r.segment(&n.id.0) {
                        Some(seg) => {
                            let parts: Vec<Facts> = seg
                                .summary
                                .nfs
                                .iter()
                                .filter_map(|id| facts.iter().find(|f| f.nf == *id).cloned())
                                .collect();
                            let ratio = if seg.summary.instructions_before > 0 {
                                seg.summary.instructions_after as f64
                                    / seg.summary.instructions_before as f64
                            } else {
                                1.0
                            };
                            // A member without facts leaves the module unknown.
                            (parts.len() == seg.summary.nfs.len())
                                .then(|| Facts::merged(n.id.0.clone(), &parts, ratio))
                        }
                        None => facts.iter().find(|f| f.nf == n.id.0).cloned(),
                    })
                    .collect(),
                _ => facts,
            };
            verify_facts(self.deployed_chain()?, &derived)?;
            self.deployed_facts = Some(derived);
        }
        Ok(self.deployed_facts.as_deref().unwrap_or_default())
    }

    /// Place the deployed chain and prove the plan (repairing rejected
    /// splits in strict mode, see [`crate::plan_proof::prove_and_repair`]).
    pub fn place(&mut self) -> Result<&Placement, Failure> {
        if self.placement.is_none() {
            let facts = self.deployed_facts()?.to_vec();
            let chain = self.deployed_chain()?.clone();
            let (plan, d) = place(&chain, &facts)?;
            self.diagnostics.extend(d);
            let (plan, d, proof) = crate::plan_proof::prove_and_repair(
                &chain,
                &facts,
                plan,
                &self.opts.workspace,
                &self.opts.proof,
            )?;
            if has_errors(&d) {
                let mut all = std::mem::take(&mut self.diagnostics);
                all.extend(d);
                return Err(Failure::Diagnostics(all));
            }
            self.diagnostics.extend(d);
            self.placement = Some(Placement { plan, proof });
        }
        Ok(self.placement.as_ref().expect("set above"))
    }

    /// The predictor's estimate for the chain on flash-rt: per-NF costs
    /// measured offline (callgrind) fed to the calibrated cost model
    /// (`src/prediction.rs`). Not available without `predict_exe` or for a
    /// chain not loaded from a file.
    pub fn predict(&mut self) -> Result<nfc_core::prediction::Prediction, Failure> {
        if let Some(p) = &self.prediction {
            return Ok(p.clone());
        }
        let chain = self.chain()?.clone();
        let (Some(path), Some(exe)) = (self.chain_path.clone(), self.opts.predict_exe.clone())
        else {
            return Err(Failure::not_available("predict"));
        };
        let p = crate::prediction::predict_chain(
            &chain,
            &path,
            &exe,
            &self.opts.workspace.dir,
            self.opts.cost_model.as_deref(),
        )?;
        Ok(self.prediction.insert(p).clone())
    }

    /// The SmartNIC (Agilio) plan of the chain: its NFs profiled,
    /// instrumented, over the head of its traffic, then placed.
    pub fn agilio_plan(&mut self) -> Result<crate::emit::agilio::AgilioPlan, Failure> {
        let facts = self.deployed_facts()?.to_vec();
        let chain = self.deployed_chain()?.clone();
        // Profiled on the chain as written (its NFs, not a reduced module).
        let original = self.chain()?.clone();
        let (profile, d) = crate::emit::agilio_profile::measure(
            &original,
            &self.opts.workspace,
            crate::emit::agilio_profile::PROFILE_PACKETS,
        )?;
        self.diagnostics.extend(d);
        let models = crate::emit::agilio::PlanModels::load(&self.opts.workspace);
        crate::emit::agilio::plan(&chain, &facts, Some(&profile), &models)
    }

    /// Emit `target` for the deployed chain into the output directory.
    pub fn emit(&mut self, target: Target) -> Result<Emitted, Failure> {
        match target {
            Target::Agilio => {
                let plan = self.agilio_plan()?;
                let files = crate::emit::agilio::write_target(&plan, &self.opts.out_dir)?;
                Ok(Emitted {
                    files,
                    notes: vec![],
                })
            }
            Target::Flash => {
                let facts = self.deployed_facts()?.to_vec();
                self.place()?;
                let chain = self.deployed_chain()?.clone();
                let (files, notes) = crate::emit::flash_target(
                    &chain,
                    &facts,
                    &self.opts.workspace,
                    &self.opts.out_dir,
                )?;
                Ok(Emitted { files, notes })
            }
            Target::Fastclick => {
                let facts = self.deployed_facts()?.to_vec();
                let plan = self.place()?.plan.clone();
                let chain = self.deployed_chain()?.clone();
                let files = crate::emit::fastclick_target(
                    &chain,
                    &facts,
                    &plan,
                    &self.opts.workspace,
                    &self.opts.out_dir,
                )?;
                Ok(Emitted {
                    files,
                    notes: vec![],
                })
            }
        }
    }

    /// A stage's output as JSON (what `--emit <stage>` writes), if it ran.
    pub fn dump(&self, stage: Stage) -> Option<serde_json::Value> {
        use serde_json::json;
        match stage {
            Stage::Load => self.chain.as_ref().map(|c| json!(c.dump())),
            Stage::Analyze => self.facts.as_ref().map(|f| json!(f)),
            Stage::Reduce => self.reduced.as_ref().map(reduce_json),
            Stage::Place => self
                .placement
                .as_ref()
                .map(|p| json!({ "plan": p.plan, "proof": p.proof, "facts": self.deployed_facts })),
            Stage::Predict => Some(
                self.prediction
                    .as_ref()
                    .map_or(json!("not available yet"), |p| json!(p)),
            ),
            Stage::Emit => None,
        }
    }
}

/// Place `chain` with `facts` on its own traffic, default options.
fn place(chain: &ChainSpec, facts: &[Facts]) -> Result<(Plan, Vec<Diagnostic>), Failure> {
    let traffic = driver::traffic_profile(chain)?;
    driver::place_chain(chain, facts, &traffic, &driver::PlaceOptions::default())
}

/// The reduce record as JSON: per segment its NFs, files, summary; the
/// whole-chain check; and why the rest was not reduced.
pub fn reduce_json(r: &ReduceRecord) -> serde_json::Value {
    use serde_json::json;
    match r {
        ReduceRecord::Off => json!({ "off": true }),
        ReduceRecord::Unreduced { report, reasons } => {
            json!({ "fell_back": true, "report": report, "reasons": reasons })
        }
        ReduceRecord::Reduced(r) => json!({
            "fell_back": false,
            "segments": r.segments.iter().map(|s| json!({
                "id": s.id, "nfs": s.summary.nfs, "summary": s.summary, "files": s.files, "dump": s.dump,
            })).collect::<Vec<_>>(),
            "chain": r.chain.dump(),
            "chain_file": r.chain_file,
            "chain_check": r.check,
            "not_reduced": r.not_reduced,
        }),
    }
}

/// Analyze the NFs of `chain` the override does not cover; the override's
/// facts (by instance id) complete the list, in chain order.
fn analyze_with_override(
    chain: &ChainSpec,
    opts: &AnalyzeOptions,
    facts_override: &[Facts],
) -> Result<(Vec<Facts>, Vec<Diagnostic>), Failure> {
    let (mut facts, mut diags) = if facts_override.is_empty() {
        driver::analyze_chain(chain, opts)?
    } else {
        let mut sub = chain.clone();
        sub.nfs
            .retain(|n| !facts_override.iter().any(|f| f.nf == n.id.0));
        if sub.nfs.is_empty() {
            (vec![], vec![])
        } else {
            driver::analyze_chain(&sub, opts)?
        }
    };
    for f in facts_override {
        if chain.nf(&f.nf).is_some() {
            facts.retain(|g| g.nf != f.nf);
            facts.push(f.clone());
        } else {
            diags.push(
                Diagnostic::warning(
                    "E0302",
                    format!(
                        "--facts names NF `{}`, which is not in the chain: ignored",
                        f.nf
                    ),
                )
                .with_hint("the `nf` of each facts record is the NF's id in the chain file"),
            );
        }
    }
    facts.sort_by_key(|f| chain.nfs.iter().position(|n| n.id.0 == f.nf));
    Ok((facts, diags))
}

/// The facts the placer gets are sane: at most one record per NF, each for
/// an NF of the chain; a flow key only on a stateful NF, sorted without
/// repeats; confidence within 0..=1. A violation is an internal error (an
/// analyzer or derivation bug), never silently placed.
pub fn verify_facts(chain: &ChainSpec, facts: &[Facts]) -> Result<(), Failure> {
    let bad = |message: String| Failure::Internal {
        stage: "analyze",
        message,
    };
    for (i, f) in facts.iter().enumerate() {
        if chain.nf(&f.nf).is_none() {
            return Err(bad(format!(
                "facts for `{}`, which is not in the chain",
                f.nf
            )));
        }
        if facts[..i].iter().any(|g| g.nf == f.nf) {
            return Err(bad(format!("two facts records for `{}`", f.nf)));
        }
        if !f.stateful && !f.flow_key.is_empty() {
            return Err(bad(format!("`{}` is stateless but has a flow key", f.nf)));
        }
        if f.flow_key.windows(2).any(|w| w[0] >= w[1]) {
            return Err(bad(format!("`{}`: flow key not sorted or repeated", f.nf)));
        }
        if !(0.0..=1.0).contains(&f.confidence) {
            return Err(bad(format!(
                "`{}`: confidence {} outside 0..=1",
                f.nf, f.confidence
            )));
        }
    }
    Ok(())
}

/// The FlowMage-style rewrite of an operator's FastClick configuration
/// (Fig. 7): its elements' facts, the plan, and the rewritten text.
#[derive(Debug, Clone)]
pub struct ClickRewrite {
    pub text: String,
    /// (element name, facts) for each element whose class was found.
    pub facts: Vec<(String, Facts)>,
    pub plan: Plan,
    pub diagnostics: Vec<Diagnostic>,
}

/// Analyze the element classes of the `.click` file at `input` (their
/// sources under `source_root`), place them on `cores`, and rewrite the
/// configuration in place: only the parameters the plan decides change.
/// The elements are Click code, so there is nothing to reduce or prove.
pub fn rewrite_click(
    input: &Path,
    source_root: &Path,
    cores: u32,
    opts: &AnalyzeOptions,
) -> Result<ClickRewrite, Failure> {
    let file = input.display().to_string();
    let text = std::fs::read_to_string(input).map_err(|e| {
        Failure::diag(Diagnostic::error(
            "E0006",
            format!("cannot read {file}: {e}"),
        ))
    })?;
    let (facts, mut diagnostics) =
        crate::emit::fastclick_sources::analyze_click_elements(&text, &file, source_root, opts)?;
    let resources = nfc_core::chain::Resources {
        cores,
        ..Default::default()
    };
    let (plan, d) = driver::place_nfs(
        &facts,
        &resources,
        &nfc_placer::TrafficProfile::default(),
        &driver::PlaceOptions::default(),
    )?;
    diagnostics.extend(d);
    let text = crate::emit::fastclick::rewrite_click(
        &text,
        &file,
        &facts,
        &plan,
        Some(crate::emit::FLOW_RULES_FILE),
    )
    .map_err(Failure::Diagnostics)?;
    Ok(ClickRewrite {
        text,
        facts,
        plan,
        diagnostics,
    })
}
