//! Scoring the static analyzer on the real-world corpus (`labels.yaml`):
//! shared by the test (`tests/realworld.rs`, safety properties) and the bench
//! (`benches/analyze.rs`, accuracy and speed report). The code itself is
//! fetched by `cargo xtask setup --corpus`; only labels live in the repo.

#![allow(dead_code)]

use nfc_analyzer::AnalyzeOptions;
use nfc_core::facts::{Facts, Field, Question};
use std::collections::BTreeMap;
use std::path::Path;

pub use nfc_analyzer::realworld::{corpus_dir, unit_paths, Unit};

/// The labelled units (`nfc_analyzer::realworld`, the one loader); a test
/// or bench cannot run on broken labels, so an error ends it here.
pub fn load_units() -> Vec<Unit> {
    nfc_analyzer::realworld::load_units().unwrap_or_else(|e| panic!("{e}"))
}

/// Analyse one unit as `nfc analyze <files> -I <include_dirs>` would.
pub fn analyze_unit(corpus: &Path, unit: &Unit) -> (Facts, Vec<nfc_core::Diagnostic>) {
    let (files, include_dirs) = unit_paths(corpus, unit);
    let input = nfc_analyzer::input_from_paths(Some(&unit.id), &files)
        .unwrap_or_else(|e| panic!("{}: {e}", unit.id));
    let opts = AnalyzeOptions {
        include_dirs,
        ..AnalyzeOptions::default()
    };
    nfc_analyzer::analyze(&input, &opts).unwrap_or_else(|e| panic!("{}: {e}", unit.id))
}

/// One scored answer.
#[derive(Debug, Clone)]
pub struct Verdict {
    pub question: &'static str,
    pub ok: bool,
    /// The answer would let the placer split state the label says must not
    /// be split (stateless for a stateful unit, a key broader than the
    /// label's, splittable for an unsplittable unit).
    pub unsafe_answer: bool,
    pub unknown: bool,
    pub detail: String,
}

fn names(k: &[Field]) -> String {
    format!(
        "[{}]",
        k.iter().map(|f| f.name()).collect::<Vec<_>>().join(", ")
    )
}

/// Score `facts` against `unit`'s labels. A question whose label is null is
/// not scored; "unknown" is a miss but never unsafe.
pub fn score(unit: &Unit, facts: &Facts) -> Vec<Verdict> {
    let mut out = vec![];
    let why = |q: &str| unit.why.get(q).cloned().unwrap_or_default();
    let unknown = |q: Question| {
        facts
            .unknown
            .iter()
            .find(|u| u.question == q)
            .map(|u| u.reason.clone())
    };
    let mut push = |question: &'static str,
                    ok: bool,
                    unsafe_answer: bool,
                    unk: Option<String>,
                    got: String,
                    want: String,
                    why: String| {
        out.push(Verdict {
            question,
            ok: ok && unk.is_none(),
            unsafe_answer: unsafe_answer && unk.is_none(),
            unknown: unk.is_some(),
            detail: match unk {
                Some(r) => format!("unknown ({r}); label {want}: {why}"),
                None => format!("got {got}, label {want}: {why}"),
            },
        })
    };
    push(
        "stateful",
        facts.stateful == unit.stateful,
        unit.stateful && !facts.stateful,
        unknown(Question::Stateful),
        facts.stateful.to_string(),
        unit.stateful.to_string(),
        why("stateful"),
    );
    if unit.stateful {
        if let Some(k) = &unit.flow_key {
            let broader = facts.stateful && facts.flow_key.iter().any(|f| !k.contains(f));
            push(
                "flow_key",
                facts.stateful && &facts.flow_key == k,
                broader || !facts.stateful,
                unknown(Question::FlowKey).or(unknown(Question::Stateful)),
                names(&facts.flow_key),
                names(k),
                why("flow_key"),
            );
        }
        if let Some(i) = unit.intensity {
            push(
                "intensity",
                facts.intensity == i,
                false,
                unknown(Question::Intensity),
                facts.intensity.to_string(),
                i.to_string(),
                why("intensity"),
            );
        }
        if let Some(p) = unit.pointer_chasing {
            push(
                "pointer_chasing",
                facts.pointer_chasing == p,
                false,
                unknown(Question::PointerChasing),
                facts.pointer_chasing.to_string(),
                p.to_string(),
                why("pointer_chasing"),
            );
        }
        if let Some(s) = unit.symmetric {
            push(
                "symmetric",
                facts.symmetric == s,
                false,
                unknown(Question::Symmetric),
                facts.symmetric.to_string(),
                s.to_string(),
                why("symmetric"),
            );
        }
    }
    if let Some(sp) = unit.splittable {
        let got = facts.splittable();
        push(
            "splittable",
            got == sp,
            got && !sp,
            None,
            got.to_string(),
            sp.to_string(),
            why("splittable"),
        );
    }
    out
}

/// Accuracy per question, per question and code base, and the misses.
#[derive(Debug, Default)]
pub struct Report {
    pub per_question: BTreeMap<&'static str, (usize, usize)>,
    pub per_codebase: BTreeMap<(String, &'static str), (usize, usize)>,
    pub misses: Vec<String>,
    pub unsafe_answers: Vec<String>,
}

impl Report {
    pub fn add(&mut self, unit: &Unit, verdicts: &[Verdict]) {
        for v in verdicts {
            let e = self.per_question.entry(v.question).or_default();
            e.1 += 1;
            let c = self
                .per_codebase
                .entry((unit.codebase.clone(), v.question))
                .or_default();
            c.1 += 1;
            if v.ok {
                e.0 += 1;
                c.0 += 1;
            } else {
                self.misses
                    .push(format!("{} {}: {}", unit.id, v.question, v.detail));
            }
            if v.unsafe_answer {
                self.unsafe_answers
                    .push(format!("{} {}: {}", unit.id, v.question, v.detail));
            }
        }
    }

    pub fn table(&self) -> String {
        let mut t = String::from("question          score     accuracy\n");
        for (q, (ok, n)) in &self.per_question {
            t.push_str(&format!(
                "{q:<17} {ok:>3}/{n:<3}   {:>5.1}%\n",
                100.0 * *ok as f64 / (*n).max(1) as f64
            ));
        }
        t.push_str("\nper code base:\n");
        for ((cb, q), (ok, n)) in &self.per_codebase {
            t.push_str(&format!("  {cb:<10} {q:<16} {ok:>3}/{n}\n"));
        }
        t.push_str(&format!(
            "\nunsafe answers (stateless for stateful, key broader than the label, splittable for unsplittable): {}\n",
            self.unsafe_answers.len()
        ));
        for u in &self.unsafe_answers {
            t.push_str(&format!("  UNSAFE {u}\n"));
        }
        t.push_str(&format!("\nevery miss ({}):\n", self.misses.len()));
        for m in &self.misses {
            t.push_str(&format!("  {m}\n"));
        }
        t
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "per_question": self.per_question.iter().map(|(q, (ok, n))| (q.to_string(), serde_json::json!({"ok": ok, "n": n}))).collect::<serde_json::Map<_, _>>(),
            "per_codebase": self.per_codebase.iter().map(|((cb, q), (ok, n))| serde_json::json!({"codebase": cb, "question": q, "ok": ok, "n": n})).collect::<Vec<_>>(),
            "misses": self.misses,
            "unsafe": self.unsafe_answers,
        })
    }
}
