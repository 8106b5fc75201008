//! `nfc-analyzer` learns what an NF does with state from its source: whether it
//! keeps per-flow state, the flow key, symmetry, write intensity, pointer
//! chasing, state objects, cost and accelerator candidates, each with evidence.
//! The static backend (tree-sitter + data flow, [`static_analysis`]) is the
//! default; an LLM backend ([`llm`]) speaks to any OpenAI-compatible endpoint
//! with FlowMage's prompts; [`combine`] merges the two without ever accepting
//! a flow key broader than the static one; [`cache`] is the feature tracker.
//!
//! Entry points: [`input_from_paths`] then [`analyze`].

pub mod cache;
pub mod combine;
pub mod llm;
pub mod realworld;
pub mod source;
pub mod static_analysis;

use nfc_core::chain::Framework;
use nfc_core::diag::{Diagnostic, Span};
use nfc_core::facts::Facts;
use std::path::PathBuf;

pub use llm::{compare_complexity, LlmOptions, LlmUsage};
pub use source::input_from_paths;

/// Errors of the analyzer library.
#[derive(Debug, thiserror::Error)]
pub enum AnalyzeError {
    /// A source file or directory could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The input names no C/C++ source files.
    #[error("no C or C++ source files found for `{what}`")]
    NoSources { what: String },
    /// The facts cache could not be written.
    #[error("facts cache: {message}")]
    Cache { message: String },
    /// The LLM backend was the only backend asked for and it failed.
    #[error("LLM analysis failed: {message}")]
    Llm { message: String },
}

/// What to analyse: one NF's source files.
#[derive(Debug, Clone, PartialEq)]
pub struct AnalysisInput {
    pub name: String,
    pub files: Vec<PathBuf>,
    /// None = detect from the source.
    pub framework: Option<Framework>,
}

/// Which backend(s) answer.
#[derive(Debug, Clone, Default)]
pub enum BackendChoice {
    /// tree-sitter + data flow, offline and deterministic.
    #[default]
    Static,
    /// The LLM answers (the static answer is still computed as a fallback and
    /// as a bound on the flow key).
    Llm(LlmOptions),
    /// Both; disagreements become diagnostics.
    Both(LlmOptions),
}

impl BackendChoice {
    fn tag(&self) -> String {
        match self {
            BackendChoice::Static => "static".into(),
            BackendChoice::Llm(o) => format!("llm:{}:{}:{}", o.base_url, o.model, o.runs),
            BackendChoice::Both(o) => format!("both:{}:{}:{}", o.base_url, o.model, o.runs),
        }
    }
}

/// Options of [`analyze`].
#[derive(Debug, Clone, Default)]
pub struct AnalyzeOptions {
    pub backend: BackendChoice,
    /// Where to cache facts (the CLI passes `.nfc/facts/`); None = no cache.
    pub cache_dir: Option<PathBuf>,
    /// Directories searched for `#include`s after the including file's own
    /// directory (the driver passes nfc's include directory, so an nfc-C NF
    /// anywhere on disk finds `nf.h`).
    pub include_dirs: Vec<PathBuf>,
    /// Time and memory the static analysis of one NF may use.
    pub budget: Budget,
}

/// Limits of one NF's static analysis. Over budget, every answer is
/// "unknown" (the conservative facts) with a diagnostic, never a crash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// CPU time of the analysis (its threads' work, not wall-clock time:
    /// the answers do not depend on what else the machine runs).
    pub time: std::time::Duration,
    /// Bytes of abstract state (access paths and values) the engine may hold.
    pub memory_bytes: u64,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            time: std::time::Duration::from_secs(5),
            memory_bytes: 512 << 20,
        }
    }
}

/// Analyse one NF. Bad source never fails the call: it lowers confidence and
/// adds diagnostics. Errors are for unreadable inputs (and an LLM-only run
/// whose endpoint failed *and* whose static fallback is disabled — never here,
/// the static answer always backs it up).
pub fn analyze(
    input: &AnalysisInput,
    opts: &AnalyzeOptions,
) -> Result<(Facts, Vec<Diagnostic>), AnalyzeError> {
    let (closure, missing) = source::closure(&input.files, &opts.include_dirs)?;
    let tag = opts.backend.tag();
    // Hashing the closure (a megabyte of headers for a DPDK unit) costs a
    // tenth of an analysis: only done when there is a cache to consult.
    let key = opts
        .cache_dir
        .as_ref()
        .map(|_| cache::cache_key(&input.name, &closure, &tag));
    if let (Some(dir), Some(key)) = (&opts.cache_dir, &key) {
        if let Some((facts, diags)) = cache::load(dir, &input.name, key) {
            return Ok((facts, diags));
        }
    }
    let sources: Vec<static_analysis::SourceText> = closure
        .iter()
        .map(|(p, text)| static_analysis::SourceText {
            display: display_path(p),
            text: text.clone(),
            included: !input.files.contains(p),
        })
        .collect();
    let mut header_diags = vec![];
    let unresolved = source::report_missing_headers(&input.name, &missing, &mut header_diags);
    let (static_facts, mut diags) = static_analysis::analyze_static_with(
        &input.name,
        &sources,
        input.framework,
        &opts.budget,
        &unresolved,
    );
    diags.splice(0..0, header_diags);
    let over_budget = diags.iter().any(|d| d.code == static_analysis::OVER_BUDGET);
    let facts = match &opts.backend {
        BackendChoice::Static => static_facts,
        BackendChoice::Llm(o) | BackendChoice::Both(o) => {
            let own: Vec<&static_analysis::SourceText> = sources
                .iter()
                .filter(|s| input.files.iter().any(|f| display_path(f) == s.display))
                .collect();
            let prompt_sources: Vec<(String, String)> = own
                .iter()
                .map(|s| (s.display.clone(), s.text.clone()))
                .collect();
            match llm::analyze_llm(&input.name, &prompt_sources, &static_facts, o) {
                Ok((answer, usage, mut ldiags)) => {
                    diags.append(&mut ldiags);
                    diags.push(Diagnostic::note_diag(
                        "A0301",
                        format!(
                            "LLM usage for `{}`: {} run(s), {} prompt + {} completion tokens, ${:.4}",
                            input.name, usage.runs, usage.prompt_tokens, usage.completion_tokens, usage.cost_usd
                        ),
                    ));
                    let both = matches!(opts.backend, BackendChoice::Both(_));
                    let (f, mut cd) = combine::combine(&static_facts, &answer, both);
                    diags.append(&mut cd);
                    f
                }
                Err(d) => {
                    diags.push(
                        d.with_span_opt(
                            input
                                .files
                                .first()
                                .map(|f| Span::file_only(display_path(f))),
                        ),
                    );
                    static_facts
                }
            }
        }
    };
    // A budget verdict depends on the machine's speed, not only on the
    // sources: never cache it.
    if let (Some(dir), Some(key), false) = (&opts.cache_dir, &key, over_budget) {
        cache::store(dir, &input.name, key, &facts, &diags)?;
    }
    Ok((facts, diags))
}

fn display_path(p: &std::path::Path) -> String {
    p.display().to_string()
}
