//! `nfc analyze`: what each NF does with state, with evidence.

use super::{out, warnings, Format};
use nfc::driver::{self, AnalyzeOptions, BackendChoice, LlmOptions};
use nfc_core::Facts;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// A chain file (analyzes each of its NFs), or NF source files and directories
    /// (a directory is one NF; each file argument is one NF).
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    #[command(flatten)]
    pub analyzer: AnalyzerArgs,
    /// Print the evidence (file, lines, reason) behind every answer.
    #[arg(long)]
    pub explain: bool,
    /// Also lower each NF to IR (clang-19, proxy NIC target) and add the CRC/LPM
    /// accelerators the IR classifier finds to the facts, with evidence (`nfc insight` has the rest).
    #[arg(long)]
    pub smartnic: bool,
}

/// Analyzer options shared by analyze, explain and build.
#[derive(Debug, Clone, clap::Args)]
pub struct AnalyzerArgs {
    /// Which analysis backend answers.
    #[arg(long, value_enum, default_value_t = Backend::Static)]
    pub analyzer: Backend,
    /// Base URL of an OpenAI-compatible endpoint (llm/both), e.g. http://127.0.0.1:8080/v1.
    #[arg(long, env = "NFC_LLM_BASE_URL")]
    pub llm_base_url: Option<String>,
    /// Model name for the LLM backend.
    #[arg(long, env = "NFC_LLM_MODEL", default_value = "gpt-4o")]
    pub llm_model: String,
    /// Environment variable holding the API key.
    #[arg(long, default_value = "OPENAI_API_KEY")]
    pub llm_key_env: String,
    /// LLM runs to majority-vote over.
    #[arg(long, default_value_t = 3)]
    pub llm_runs: u32,
    /// Seconds before one LLM request times out.
    #[arg(long, default_value_t = 60)]
    pub llm_timeout: u64,
    /// Directory for caches and build outputs.
    #[arg(long, default_value = ".nfc")]
    pub cache_dir: PathBuf,
    /// Analyze again even when the cached facts match the sources.
    #[arg(long)]
    pub no_cache: bool,
    /// Seconds of CPU time the static analysis of one NF may use; over it every answer is "unknown".
    #[arg(long, default_value_t = 5.0, value_name = "SECONDS")]
    pub analysis_time: f64,
    /// Megabytes of abstract state the static analysis of one NF may hold.
    #[arg(long, default_value_t = 512, value_name = "MB")]
    pub analysis_memory: u64,
    /// Extra directories searched for the NFs' `#include`s (nfc's own, with nf.h, is always searched).
    #[arg(long = "include", short = 'I', value_name = "DIR")]
    pub include_dirs: Vec<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Backend {
    /// tree-sitter + data flow: deterministic, offline, fast.
    Static,
    /// Ask an LLM (the static answer bounds the flow key and is the fallback).
    Llm,
    /// Both; disagreements are reported.
    Both,
}

impl AnalyzerArgs {
    pub fn options(&self) -> anyhow::Result<AnalyzeOptions> {
        let llm = || -> anyhow::Result<LlmOptions> {
            let base_url = self.llm_base_url.clone().ok_or_else(|| {
                nfc::Failure::diag(
                    nfc_core::Diagnostic::error("E0301", "the LLM backend needs an endpoint")
                        .with_hint("pass --llm-base-url (or set NFC_LLM_BASE_URL) to an OpenAI-compatible endpoint"),
                )
            })?;
            Ok(LlmOptions {
                base_url,
                model: self.llm_model.clone(),
                api_key: std::env::var(&self.llm_key_env).unwrap_or_default(),
                runs: self.llm_runs.max(1),
                timeout: std::time::Duration::from_secs(self.llm_timeout.max(1)),
                ..LlmOptions::default()
            })
        };
        let backend = match self.analyzer {
            Backend::Static => BackendChoice::Static,
            Backend::Llm => BackendChoice::Llm(llm()?),
            Backend::Both => BackendChoice::Both(llm()?),
        };
        if !(self.analysis_time.is_finite() && self.analysis_time > 0.0) {
            return Err(nfc::Failure::diag(
                nfc_core::Diagnostic::error(
                    "E0302",
                    format!(
                        "--analysis-time {} is not a positive number of seconds",
                        self.analysis_time
                    ),
                )
                .with_hint("e.g. --analysis-time 5"),
            )
            .into());
        }
        let mut include_dirs = self.include_dirs.clone();
        include_dirs.push(nfc_nfs::include_dir());
        Ok(AnalyzeOptions {
            backend,
            cache_dir: (!self.no_cache).then(|| self.cache_dir.join("facts")),
            include_dirs,
            budget: nfc_analyzer::Budget {
                time: std::time::Duration::from_secs_f64(self.analysis_time.min(86_400.0)),
                memory_bytes: self.analysis_memory.max(1) << 20,
            },
        })
    }
}

fn is_chain(p: &std::path::Path) -> bool {
    p.is_file() && p.extension().is_some_and(|e| e == "yaml" || e == "yml")
}

pub fn run(args: Args, fmt: Format) -> anyhow::Result<ExitCode> {
    let opts = args.analyzer.options()?;
    let mut facts: Vec<Facts> = vec![];
    let mut diags = vec![];
    for input in &args.inputs {
        if is_chain(input) {
            let (chain, w) = driver::load_chain(input)?;
            diags.extend(w);
            let (f, d) = driver::analyze_chain(&chain, &opts)?;
            facts.extend(f);
            diags.extend(d);
        } else {
            let (f, d) = driver::analyze_paths(None, std::slice::from_ref(input), &opts)?;
            facts.push(f);
            diags.extend(d);
        }
    }
    if args.smartnic {
        smartnic_accelerators(&args, &mut facts, &mut diags)?;
    }
    warnings(&diags, fmt);
    match fmt {
        Format::Json => out(&format!("{}\n", serde_json::to_string_pretty(&facts)?))?,
        Format::Human => {
            let mut t = human(&facts, args.explain);
            if args.smartnic {
                for f in &facts {
                    let a: Vec<String> = f
                        .accelerators
                        .iter()
                        .map(|a| format!("{a:?}").to_lowercase())
                        .collect();
                    t.push_str(&format!(
                        "{}: accelerators {}\n",
                        f.nf,
                        if a.is_empty() {
                            "none".to_string()
                        } else {
                            a.join(", ")
                        }
                    ));
                }
            }
            out(&t)?
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `--smartnic`: the IR accelerator classifier's findings join each NF's
/// facts (the analyzer links no LLVM; this is plain data passed in). An NF
/// that does not lower keeps its facts and gets a warning (E0810).
fn smartnic_accelerators(
    args: &Args,
    facts: &mut [Facts],
    diags: &mut Vec<nfc_core::Diagnostic>,
) -> anyhow::Result<()> {
    let models = nfc::insight::shipped_models().map_err(|e| {
        nfc::Failure::diag(nfc_core::Diagnostic::error(
            "E0811",
            format!("the insight models could not be loaded: {e}"),
        ))
    })?;
    let mut include = args.analyzer.include_dirs.clone();
    include.push(nfc_nfs::include_dir());
    let nfs = super::insight::nfs_of(&args.inputs, diags)?;
    for ((name, files), f) in nfs.iter().zip(facts.iter_mut()) {
        match nfc::insight::lower_nf(name, files, &include) {
            Ok(u) => {
                let own: Vec<_> = u.functions.iter().filter(|f| !f.framework).collect();
                let c = nfc::insight::accelerator_candidates(&own, files, &models.accel);
                nfc::insight::add_accelerator_facts(f, &c, files);
            }
            Err(e) => diags.push(
                nfc_core::Diagnostic::warning(
                    "E0810",
                    format!(
                        "NF `{name}` does not compile for the insight proxy target; no IR accelerator facts: {}",
                        super::insight::first_error(&e)
                    ),
                )
                .with_span_opt(super::insight::clang_span(&e)),
            ),
        }
    }
    Ok(())
}

/// One block per NF; with `explain`, the evidence lines.
pub fn human(facts: &[Facts], explain: bool) -> String {
    let mut t = String::new();
    for f in facts {
        let key = if f.flow_key.is_empty() {
            "-".to_string()
        } else {
            f.flow_key
                .iter()
                .map(|k| k.name())
                .collect::<Vec<_>>()
                .join(", ")
        };
        t.push_str(&format!(
            "{}: {}; flow key {{{}}}; {}; writes {}; {}; confidence {:.2}\n",
            f.nf,
            if f.stateful { "stateful" } else { "stateless" },
            key,
            if f.symmetric {
                "symmetric"
            } else {
                "not symmetric"
            },
            f.intensity,
            if f.pointer_chasing {
                "pointer chasing"
            } else {
                "no pointer chasing"
            },
            f.confidence
        ));
        for s in &f.state_objects {
            t.push_str(&format!(
                "    state `{}`: key {:?}, {} bytes/entry, capacity {}{}\n",
                s.name,
                s.key.iter().map(|k| k.name()).collect::<Vec<_>>(),
                s.entry_bytes
                    .map(|b| b.to_string())
                    .unwrap_or_else(|| "?".into()),
                s.capacity
                    .map(|c| c.to_string())
                    .unwrap_or_else(|| "?".into()),
                if s.per_flow { "" } else { " (not per flow)" }
            ));
        }
        for u in &f.unknown {
            t.push_str(&format!(
                "    unknown {}: {} (the answer above is the conservative one)\n",
                question_name(u.question),
                u.reason
            ));
        }
        for h in &f.split_hazards {
            let at = match (&h.file, h.line) {
                (Some(file), Some(line)) => format!(" ({file}:{line})"),
                _ => String::new(),
            };
            t.push_str(&format!(
                "    not splittable: `{}` {}{at}\n",
                h.object, h.reason
            ));
        }
        if explain {
            for e in &f.evidence {
                t.push_str(&format!(
                    "    [{:?}] {}:{}-{}: {}\n",
                    e.question, e.file, e.line_start, e.line_end, e.reason
                ));
            }
        }
    }
    t
}

/// The JSON name of a question (as in `unknown[].question`).
fn question_name(q: nfc_core::facts::Question) -> String {
    serde_json::to_value(q)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| format!("{q:?}"))
}
