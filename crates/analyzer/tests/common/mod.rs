//! Shared test helpers: loading expected facts (the `facts.yaml` /
//! `expected.yaml` format) and comparing them with analyzer output, question
//! by question.

#![allow(dead_code)]

use nfc_core::facts::{Facts, Field, Intensity};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use yaml_rust2::{Yaml, YamlLoader};

/// Expected answers; `None` = not stated in the file, not checked.
#[derive(Debug, Clone)]
pub struct Expected {
    pub nf: String,
    pub stateful: bool,
    pub flow_key: BTreeSet<Field>,
    /// `flow_key: unknown`: the code does not decide the key (the analyzer
    /// must say so, with the conservative empty key).
    pub flow_key_unknown: bool,
    pub symmetric: bool,
    pub intensity: Intensity,
    pub pointer_chasing: bool,
    pub state_entry_bytes: Option<u64>,
    pub objects: Vec<ExpectedObject>,
}

#[derive(Debug, Clone)]
pub struct ExpectedObject {
    pub name: String,
    pub key: BTreeSet<Field>,
    pub entry_bytes: Option<u64>,
    pub capacity: Option<u64>,
    pub per_flow: Option<bool>,
    pub pointer_chasing: Option<bool>,
}

fn fields(y: &Yaml) -> BTreeSet<Field> {
    y.as_vec()
        .map(|v| v.iter().filter_map(|f| f.as_str()?.parse().ok()).collect())
        .unwrap_or_default()
}

pub fn load_expected(path: &Path) -> Expected {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let docs =
        YamlLoader::load_from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let d = &docs[0];
    let objects = d["state_objects"]
        .as_vec()
        .map(|v| {
            v.iter()
                .map(|o| ExpectedObject {
                    name: o["name"].as_str().unwrap_or("").to_string(),
                    key: fields(&o["key"]),
                    entry_bytes: o["entry_bytes"].as_i64().map(|x| x as u64),
                    capacity: o["capacity"].as_i64().map(|x| x as u64),
                    per_flow: o["per_flow"].as_bool(),
                    pointer_chasing: o["pointer_chasing"].as_bool(),
                })
                .collect()
        })
        .unwrap_or_default();
    Expected {
        nf: d["nf"].as_str().unwrap_or("").to_string(),
        stateful: d["stateful"].as_bool().unwrap_or(false),
        flow_key: fields(&d["flow_key"]),
        flow_key_unknown: d["flow_key"].as_str() == Some("unknown"),
        symmetric: d["symmetric"].as_bool().unwrap_or(false),
        intensity: d["intensity"]
            .as_str()
            .unwrap_or("none")
            .parse()
            .unwrap_or(Intensity::None),
        pointer_chasing: d["pointer_chasing"].as_bool().unwrap_or(false),
        state_entry_bytes: d["state_entry_bytes"].as_i64().map(|x| x as u64),
        objects,
    }
}

/// One question's verdict for one NF.
#[derive(Debug, Clone)]
pub struct Verdict {
    pub question: &'static str,
    pub ok: bool,
    pub detail: String,
}

pub fn compare(exp: &Expected, got: &Facts) -> Vec<Verdict> {
    let mut v = vec![];
    let mut q = |question: &'static str, ok: bool, detail: String| {
        v.push(Verdict {
            question,
            ok,
            detail,
        })
    };
    q(
        "stateful",
        exp.stateful == got.stateful,
        format!("expected {}, got {}", exp.stateful, got.stateful),
    );
    let gk: BTreeSet<Field> = got.flow_key.iter().copied().collect();
    let got_unknown = got.is_unknown(nfc_core::facts::Question::FlowKey);
    q(
        "flow_key",
        exp.flow_key == gk && exp.flow_key_unknown == got_unknown,
        format!(
            "expected {}, got {:?}{}",
            if exp.flow_key_unknown {
                "unknown".to_string()
            } else {
                format!("{:?}", exp.flow_key)
            },
            gk,
            if got_unknown { " (unknown)" } else { "" }
        ),
    );
    q(
        "symmetric",
        exp.symmetric == got.symmetric,
        format!("expected {}, got {}", exp.symmetric, got.symmetric),
    );
    q(
        "intensity",
        exp.intensity == got.intensity,
        format!("expected {}, got {}", exp.intensity, got.intensity),
    );
    q(
        "pointer_chasing",
        exp.pointer_chasing == got.pointer_chasing,
        format!(
            "expected {}, got {}",
            exp.pointer_chasing, got.pointer_chasing
        ),
    );
    if let Some(b) = exp.state_entry_bytes {
        q(
            "state_entry_bytes",
            got.state_entry_bytes == Some(b),
            format!("expected {b}, got {:?}", got.state_entry_bytes),
        );
    }
    for eo in &exp.objects {
        let found = got.state_objects.iter().find(|o| o.name == eo.name);
        let ok = match found {
            None => false,
            Some(o) => {
                let k: BTreeSet<Field> = o.key.iter().copied().collect();
                k == eo.key
                    && eo
                        .entry_bytes
                        .map(|b| o.entry_bytes == Some(b))
                        .unwrap_or(true)
                    && eo.capacity.map(|c| o.capacity == Some(c)).unwrap_or(true)
                    && eo.per_flow.map(|p| o.per_flow == p).unwrap_or(true)
                    && eo
                        .pointer_chasing
                        .map(|p| o.pointer_chasing == p)
                        .unwrap_or(true)
            }
        };
        q(
            "state_objects",
            ok,
            format!("object {}: expected {:?}, got {:?}", eo.name, eo, found),
        );
    }
    v
}

/// The `nfs/` directory of the workspace.
pub fn nfs_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../nfs")
}

pub fn corpus_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

/// (name, dir, expected file) for every NF with ground truth.
pub fn cases() -> Vec<(String, PathBuf, PathBuf)> {
    let mut out = vec![];
    let mut scan = |root: PathBuf, file: &str, prefix: &str| {
        let Ok(rd) = std::fs::read_dir(&root) else {
            return;
        };
        let mut dirs: Vec<PathBuf> = rd
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.join(file).is_file())
            .collect();
        dirs.sort();
        for d in dirs {
            let name = d.file_name().unwrap().to_string_lossy().into_owned();
            out.push((format!("{prefix}{name}"), d.clone(), d.join(file)));
        }
    };
    scan(nfs_root(), "facts.yaml", "nfs/");
    scan(nfs_root().join("click"), "facts.yaml", "nfs/click/");
    scan(corpus_root(), "expected.yaml", "corpus/");
    out
}
