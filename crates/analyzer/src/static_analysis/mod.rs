//! The static backend: parse the NF's files with tree-sitter, find the
//! per-packet entry points through a framework adapter (nfc C, Click /
//! FastClick, DPDK, VPP, or a generic fallback), run the data-flow engine
//! ([`dataflow`]) and turn its events into [`Facts`] with evidence.
//!
//! Definitions (FlowMage's): an NF is stateful when it keeps entries keyed by
//! packet fields and writes them on the packet path; the flow key is the set
//! of fields every such object is keyed by (the intersection, so RSS on it
//! keeps each object shared-nothing); intensity is per-packet when some
//! per-flow entry is written on a path that is not a lookup miss / new-flow
//! event; pointer chasing means per-flow lookups follow links.

mod adapters;
mod contracts;
mod cpu_clock;
pub mod dataflow;
mod demand;
pub mod headers;
mod narrowing;
pub mod preprocess;
pub mod program;
mod summarise;
mod walks;

use dataflow::{Engine, FnKind};
use nfc_core::chain::Framework;
use nfc_core::diag::{Diagnostic, Span};
use nfc_core::facts::{Backend, Facts};
use program::{ParsedFile, Program};
use std::collections::{BTreeMap, BTreeSet};

/// One source file handed to the static backend.
#[derive(Debug, Clone)]
pub struct SourceText {
    /// Path as shown in evidence.
    pub display: String,
    pub text: String,
    /// A header pulled in by an `#include` (library or framework code), not
    /// one of the NF's own files: read for types and for the bodies the
    /// packet path calls, never analysed as a root of its own.
    pub included: bool,
}

fn is_cpp_name(p: &str) -> bool {
    [".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx"]
        .iter()
        .any(|e| p.ends_with(e))
}

/// Guess the framework from the source text.
pub fn detect_framework(files: &[SourceText]) -> Option<Framework> {
    // No marker spans two files (none holds a newline), so the files are
    // searched one by one instead of copied into one text first.
    struct All<'a>(&'a [SourceText]);
    impl All<'_> {
        fn contains(&self, marker: &str) -> bool {
            self.0.iter().any(|f| f.text.contains(marker))
        }
    }
    let all = All(files);
    if all.contains("nf_process") && all.contains("nf_ctx") {
        return Some(Framework::NfcC);
    }
    if all.contains("vlib_") || all.contains("VLIB_") {
        return Some(Framework::Vpp);
    }
    if all.contains("CLICK_DECLS")
        || all.contains("<click/")
        || all.contains("simple_action")
        || all.contains("push_batch")
    {
        return Some(Framework::Click);
    }
    if all.contains("rte_mbuf") || all.contains("rte_eth_") || all.contains("rte_hash") {
        return Some(Framework::Dpdk);
    }
    None
}

/// The diagnostic code of an analysis that ran out of its budget.
pub const OVER_BUDGET: &str = "A0110";

/// The over-budget hint when more time or memory would help.
const RAISE_BUDGET: &str = "raise the budget with --analysis-time / --analysis-memory";

/// [`analyze_static_with`] under the default budget.
pub fn analyze_static(
    name: &str,
    sources: &[SourceText],
    framework: Option<Framework>,
) -> (Facts, Vec<Diagnostic>) {
    analyze_static_with(name, sources, framework, &crate::Budget::default(), &[])
}

/// Analyse the given sources within `budget`. Never fails: problems become
/// diagnostics and lower confidence; questions the code does not decide are
/// answered "unknown" (with the conservative value) and a reason.
pub fn analyze_static_with(
    name: &str,
    sources: &[SourceText],
    framework: Option<Framework>,
    budget: &crate::Budget,
    unresolved_headers: &[String],
) -> (Facts, Vec<Diagnostic>) {
    // The walks over syntax trees recurse as deep as the code nests; real
    // and mutated code (hundreds of nested parentheses) would overflow a
    // thread's default stack. The analysis runs on a thread whose stack is
    // sized for it (reserved, not committed, until used).
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("nfc-analyze".into())
            .stack_size(ANALYSIS_STACK_BYTES)
            .spawn_scoped(scope, || {
                analyze_on_this_thread(name, sources, framework, budget, unresolved_headers)
            })
            .map_err(|e| e.to_string())
            .and_then(|h| {
                h.join().map_err(|p| {
                    p.downcast_ref::<&str>()
                        .map(|s| s.to_string())
                        .or_else(|| p.downcast_ref::<String>().cloned())
                        .unwrap_or_else(|| "unknown panic".into())
                })
            })
            .unwrap_or_else(|why| {
                // A bug in the analyzer must not take the compiler down with
                // it: the NF gets the conservative answer and the user a
                // diagnostic to report.
                (
                    unknown_static(name, format!("the analysis failed: {why}")),
                    vec![Diagnostic::warning(
                        ANALYSIS_FAILED,
                        format!("analysis of `{name}` failed: {why}"),
                    )
                    .with_hint("every answer is \"unknown\" (the NF is kept shared); this is a bug in nfc, please report it with the NF's source")],
                )
            })
    })
}

/// The static backend's facts when nothing about the NF can be decided.
fn unknown_static(name: &str, reason: impl Into<String>) -> Facts {
    let mut f = Facts::unknown(name, reason);
    f.backend = Backend::Static;
    f
}

/// The diagnostic code of an analysis that failed (an analyzer bug).
pub const ANALYSIS_FAILED: &str = "A0111";

/// Stack of the analysis thread.
const ANALYSIS_STACK_BYTES: usize = 256 << 20;

/// Preprocess and parse every file, on as many threads as the machine
/// offers (at most [`PARSE_THREADS`]): files are independent, and parsing
/// is about a fifth of the instructions of the largest units (callgrind)
/// and a quarter of the median ones'. Results keep the order of `jobs`
/// (determinism). `None` when the budget ran out.
fn parse_all<'a>(
    jobs: &[(&'a SourceText, &'a str)],
    parse_one: &(dyn Fn((&'a SourceText, &'a str)) -> Option<ParsedFile> + Sync),
    budget: &cpu_clock::CpuBudget,
) -> Option<Vec<Option<ParsedFile>>> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, PARSE_THREADS)
        .min(jobs.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let late = std::sync::atomic::AtomicBool::new(false);
    // The analysis thread reads its own CPU clock; a helper counts what it
    // spends into the budget and sees only the helpers' part.
    let work = |helper: bool| {
        let mut done = vec![];
        loop {
            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if i >= jobs.len() || late.load(std::sync::atomic::Ordering::Relaxed) {
                return done;
            }
            let parsed = if helper {
                budget.on_helper(|| parse_one(jobs[i]))
            } else {
                parse_one(jobs[i])
            };
            done.push((i, parsed));
            let expired = if helper {
                budget.expired_on_helpers()
            } else {
                budget.expired()
            };
            if expired {
                late.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        }
    };
    let mut results: Vec<Option<ParsedFile>> = (0..jobs.len()).map(|_| None).collect();
    std::thread::scope(|scope| {
        // Helpers get the analysis thread's stack: error counting recurses
        // as deep as (possibly mutated) code nests.
        let helpers: Vec<_> = (1..threads)
            .filter_map(|_| {
                std::thread::Builder::new()
                    .name("nfc-parse".into())
                    .stack_size(ANALYSIS_STACK_BYTES)
                    .spawn_scoped(scope, || work(true))
                    .ok()
            })
            .collect();
        let mut all = work(false);
        for h in helpers {
            // A helper that panicked leaves its files unparsed: they are
            // reported as files that could not be parsed.
            all.extend(h.join().unwrap_or_default());
        }
        for (i, p) in all {
            results[i] = p;
        }
    });
    (!late.into_inner() && !budget.expired()).then_some(results)
}

/// Upper bound on parser threads per analysis.
const PARSE_THREADS: usize = 4;

fn analyze_on_this_thread(
    name: &str,
    sources: &[SourceText],
    framework: Option<Framework>,
    budget: &crate::Budget,
    unresolved_headers: &[String],
) -> (Facts, Vec<Diagnostic>) {
    let mut diags = vec![];
    // The budget covers the whole analysis: preprocessing and parsing a
    // large unit count as much as the data-flow run. It is CPU time (see
    // `cpu_clock`): the answers do not depend on the machine's load.
    let cpu_budget = cpu_clock::CpuBudget::start(budget.time);
    let over_budget = |why: &str, hint: &str, mut diags: Vec<Diagnostic>| {
        diags.push(
            Diagnostic::warning(
                OVER_BUDGET,
                format!(
                    "analysis of `{name}` stopped: {why} (budget {:?}, {} MB)",
                    budget.time,
                    budget.memory_bytes >> 20
                ),
            )
            .with_hint(format!(
                "every answer is \"unknown\" (the NF is kept shared); {hint}"
            )),
        );
        (
            unknown_static(name, format!("analysis over budget: {why}")),
            diags,
        )
    };
    // Ordered: macros expand in the same order on every run (determinism).
    let mut type_macros = BTreeMap::new();
    let defined = preprocess::defined_names(sources.iter().map(|s| s.text.as_str()));
    for s in sources {
        preprocess::collect_type_macros(&s.text, &defined, &mut type_macros);
    }
    let cpp_project = sources.iter().any(|s| is_cpp_name(&s.display));
    // Declarations of included headers that nothing the NF uses needs are
    // not read (C only: C++ scopes names in classes and namespaces that
    // the scan does not model).
    let texts: Vec<Option<String>> = if cpp_project {
        sources.iter().map(|s| Some(s.text.clone())).collect()
    } else {
        demand::needed(
            &sources
                .iter()
                .map(|s| (s.text.as_str(), s.included))
                .collect::<Vec<_>>(),
        )
    };
    let jobs: Vec<(&SourceText, &str)> = sources
        .iter()
        .zip(&texts)
        .filter_map(|(s, t)| t.as_deref().map(|t| (s, t)))
        .collect();
    let parse_one = |(s, text): (&SourceText, &str)| {
        let text = preprocess::preprocess(text, &type_macros);
        let cpp = is_cpp_name(&s.display) || (cpp_project && s.display.ends_with(".h"));
        program::parse(s.display.clone(), text, cpp)
    };
    let Some(results) = parse_all(&jobs, &parse_one, &cpu_budget) else {
        return over_budget("ran out of time while parsing", RAISE_BUDGET, diags);
    };
    let mut parsed: Vec<ParsedFile> = vec![];
    for ((s, _), p) in jobs.iter().zip(results) {
        match p {
            Some(p) => parsed.push(p),
            None => diags.push(
                Diagnostic::warning("A0101", format!("could not parse {}", s.display))
                    .with_span(Span::file_only(&s.display)),
            ),
        }
    }
    let framework = framework.or_else(|| detect_framework(sources));
    let prog = Program::build_with(&parsed, defined);
    let total_errors: usize = parsed.iter().map(|p| p.errors).sum();
    for p in &parsed {
        if p.errors > 0 {
            diags.push(
                Diagnostic::note_diag("A0102", format!(
                    "{} syntax error node(s) tolerated in {}{}",
                    p.errors,
                    p.display,
                    p.first_error_line.map(|l| format!(" (the first at line {l})")).unwrap_or_default()
                ))
                    .with_span(Span::file_only(&p.display))
                    .with_hint("unexpanded macros or missing headers; the analysis skips the unparsable regions"),
            );
        }
    }
    let included: BTreeSet<&str> = sources
        .iter()
        .filter(|s| s.included)
        .map(|s| s.display.as_str())
        .collect();
    let own_file = |f: usize| {
        parsed
            .get(f)
            .is_none_or(|p| !included.contains(p.display.as_str()))
    };
    let entries = adapters::find_entries(&prog, framework, &own_file);
    if entries.is_empty() {
        diags.push(
            Diagnostic::warning("A0103", format!("no per-packet entry point found in `{name}`"))
                .with_hint("expected nf_process, a Click element's simple_action/push, a DPDK function taking rte_mbuf, or a VPP node function"),
        );
        // Control-plane-only files say nothing about the packet path:
        // "cannot tell", never a confident "stateless".
        return (
            unknown_static(
                name,
                "no per-packet entry point among the files (control-plane code only?)",
            ),
            diags,
        );
    }
    let packet_entry_set: BTreeSet<usize> = entries.iter().map(|e| e.fn_idx).collect();
    // Initialisation code of the NF's own files seeds the state the packet
    // path sees (which members are containers, what configuration holds).
    // Other non-packet code says nothing about the packet path's facts, and
    // library headers' functions are reached only through calls.
    let others: Vec<(usize, FnKind)> = prog
        .fns
        .iter()
        .enumerate()
        .filter(|(i, f)| {
            f.body.is_some()
                && !packet_entry_set.contains(i)
                && (adapters::init_like(&f.name) || f.class.as_deref() == Some(&f.name))
                && own_file(f.file)
        })
        .map(|(i, _)| (i, FnKind::Init))
        .collect();
    let mut engine = Engine::new(&prog).with_budget(
        cpu_budget.stop_at(),
        cpu_budget.backstop(),
        budget.memory_bytes,
    );
    engine.run(&entries, &others);
    if let Some(why) = engine.exhausted() {
        // A fixpoint that keeps growing is no matter of budget: more time
        // would not make it settle.
        let hint = if engine.unsettled() {
            "the analysis does not converge on this code (please report it with the sources)"
        } else {
            RAISE_BUDGET
        };
        return over_budget(why, hint, diags);
    }
    let ev = std::mem::take(&mut engine.events);
    summarise::summarise(summarise::Input {
        name,
        parsed: &parsed,
        prog: &prog,
        ev,
        entries: &entries,
        diags,
        total_errors,
        unresolved_headers,
    })
}
