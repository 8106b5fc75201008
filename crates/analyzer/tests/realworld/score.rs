//! Scoring the static analyzer on the real-world corpus (`labels.yaml`):
//! shared by the test (`tests/realworld.rs`, safety properties) and the bench
//! (`benches/analyze.rs`, accuracy and speed report). The code itself is
//! fetched by `cargo xtask setup --corpus`; only labels live in the repo.

#![allow(dead_code)]

use nfc_analyzer::AnalyzeOptions;
use nfc_core::facts::{Facts, Field, Intensity, Question};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use yaml_rust2::{Yaml, YamlLoader};

/// One hand-labelled unit.
#[derive(Debug, Clone)]
pub struct Unit {
    pub id: String,
    pub package: String,
    pub codebase: String,
    pub files: Vec<String>,
    pub include_dirs: Vec<String>,
    pub stateful: bool,
    pub flow_key: Option<Vec<Field>>,
    pub intensity: Option<Intensity>,
    pub pointer_chasing: Option<bool>,
    pub symmetric: Option<bool>,
    pub splittable: Option<bool>,
    /// question name -> the labeller's reason
    pub why: BTreeMap<String, String>,
}

pub fn labels_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/realworld/labels.yaml")
}

/// The corpus cache (`$NFC_CORPUS_DIR`, else `/var/tmp/nfc-corpus`), if it
/// has been fetched.
pub fn corpus_dir() -> Option<PathBuf> {
    let d = std::env::var_os("NFC_CORPUS_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/var/tmp/nfc-corpus"));
    d.join("manifest.json").is_file().then_some(d)
}

fn opt_bool(y: &Yaml) -> Option<bool> {
    y.as_bool()
}

pub fn load_units() -> Vec<Unit> {
    let text = std::fs::read_to_string(labels_path()).expect("labels.yaml is readable");
    let docs = YamlLoader::load_from_str(&text).expect("labels.yaml parses");
    let doc = &docs[0];
    let mut codebase_of: BTreeMap<String, String> = BTreeMap::new();
    for p in doc["packages"].as_vec().expect("packages list") {
        codebase_of.insert(
            p["name"].as_str().expect("package name").to_string(),
            p["codebase"].as_str().expect("codebase").to_string(),
        );
    }
    let strs = |y: &Yaml| -> Vec<String> {
        y.as_vec()
            .map(|v| {
                v.iter()
                    .filter_map(|x| x.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    doc["units"]
        .as_vec()
        .expect("units list")
        .iter()
        .map(|u| {
            let id = u["id"].as_str().expect("unit id").to_string();
            let package = u["package"].as_str().expect("unit package").to_string();
            let mut why = BTreeMap::new();
            for q in [
                "stateful",
                "flow_key",
                "intensity",
                "pointer_chasing",
                "symmetric",
                "splittable",
            ] {
                if let Some(r) = u[format!("{q}_why").as_str()].as_str() {
                    why.insert(q.to_string(), r.to_string());
                }
            }
            Unit {
                codebase: codebase_of
                    .get(&package)
                    .cloned()
                    .unwrap_or_else(|| panic!("{id}: unknown package {package}")),
                files: strs(&u["files"]),
                include_dirs: strs(&u["include_dirs"]),
                stateful: u["stateful"].as_bool().expect("stateful is a bool"),
                flow_key: u["flow_key"].as_vec().map(|v| {
                    let mut k: Vec<Field> = v
                        .iter()
                        .map(|f| {
                            Field::from_str(f.as_str().expect("field name"))
                                .unwrap_or_else(|e| panic!("{id}: {e}"))
                        })
                        .collect();
                    k.sort();
                    k
                }),
                intensity: u["intensity"]
                    .as_str()
                    .map(|s| Intensity::from_str(s).unwrap_or_else(|e| panic!("{id}: {e}"))),
                pointer_chasing: opt_bool(&u["pointer_chasing"]),
                symmetric: opt_bool(&u["symmetric"]),
                splittable: opt_bool(&u["splittable"]),
                why,
                id,
                package,
            }
        })
        .collect()
}

/// The files of `unit` and its include directories, under `corpus`.
pub fn unit_paths(corpus: &Path, unit: &Unit) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let root = corpus.join(&unit.package);
    (
        unit.files.iter().map(|f| root.join(f)).collect(),
        unit.include_dirs.iter().map(|d| root.join(d)).collect(),
    )
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
