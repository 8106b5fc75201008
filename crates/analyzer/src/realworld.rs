//! The real-world corpus ("Analyzer II"): third-party NF code fetched by
//! `cargo xtask setup --corpus` and labelled by hand in
//! `tests/realworld/labels.yaml`. The analyzer owns the label schema; this
//! is its one loader, used by the analyzer's real-world test and bench
//! (`tests/realworld/score.rs`) and by the insight held-out set
//! (`nfc::insight::corpus_nfs`). It needs nothing beyond what the analyzer
//! already links (yaml-rust2, nfc-core), so a user of the labels pulls in no
//! new dependency.

use nfc_core::facts::{Field, Intensity};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use yaml_rust2::{Yaml, YamlLoader};

/// Errors reading the labels.
#[derive(Debug, thiserror::Error)]
pub enum LabelsError {
    #[error("cannot read {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Not YAML, or not the schema (what is wrong, and where).
    #[error("{}: {what}", path.display())]
    Invalid { path: PathBuf, what: String },
}

/// One hand-labelled unit.
#[derive(Debug, Clone)]
pub struct Unit {
    pub id: String,
    /// The Debian source package (the tree `<corpus>/<package>/`).
    pub package: String,
    pub codebase: String,
    /// Relative to the package's tree.
    pub files: Vec<String>,
    /// Relative to the package's tree.
    pub include_dirs: Vec<String>,
    pub stateful: bool,
    /// Sorted.
    pub flow_key: Option<Vec<Field>>,
    pub intensity: Option<Intensity>,
    pub pointer_chasing: Option<bool>,
    pub symmetric: Option<bool>,
    pub splittable: Option<bool>,
    /// question name -> the labeller's reason
    pub why: BTreeMap<String, String>,
}

/// The questions a unit answers; `<question>_why` is the reason.
const QUESTIONS: [&str; 6] = [
    "stateful",
    "flow_key",
    "intensity",
    "pointer_chasing",
    "symmetric",
    "splittable",
];

/// `crates/analyzer/tests/realworld/labels.yaml`.
pub fn labels_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/realworld/labels.yaml")
}

/// The corpus cache (`$NFC_CORPUS_DIR`, else `/var/tmp/nfc-corpus`), if it
/// has been fetched (its `manifest.json` exists).
pub fn corpus_dir() -> Option<PathBuf> {
    let d = std::env::var_os("NFC_CORPUS_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/var/tmp/nfc-corpus"));
    d.join("manifest.json").is_file().then_some(d)
}

/// The files of `unit` and its include directories, under `corpus`.
pub fn unit_paths(corpus: &Path, unit: &Unit) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let root = corpus.join(&unit.package);
    (
        unit.files.iter().map(|f| root.join(f)).collect(),
        unit.include_dirs.iter().map(|d| root.join(d)).collect(),
    )
}

/// The units of [`labels_path`].
pub fn load_units() -> Result<Vec<Unit>, LabelsError> {
    load(&labels_path())
}

/// The units of a labels file.
pub fn load(path: &Path) -> Result<Vec<Unit>, LabelsError> {
    let text = std::fs::read_to_string(path).map_err(|source| LabelsError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse(&text).map_err(|what| LabelsError::Invalid {
        path: path.to_path_buf(),
        what,
    })
}

fn parse(text: &str) -> Result<Vec<Unit>, String> {
    let docs = YamlLoader::load_from_str(text).map_err(|e| e.to_string())?;
    let doc = docs.first().ok_or("empty document")?;
    let mut codebase_of: BTreeMap<&str, &str> = BTreeMap::new();
    for p in doc["packages"].as_vec().ok_or("no `packages` list")? {
        let (Some(name), Some(codebase)) = (p["name"].as_str(), p["codebase"].as_str()) else {
            return Err("a package without name or codebase".into());
        };
        codebase_of.insert(name, codebase);
    }
    doc["units"]
        .as_vec()
        .ok_or("no `units` list")?
        .iter()
        .map(|u| unit(u, &codebase_of))
        .collect()
}

fn unit(u: &Yaml, codebase_of: &BTreeMap<&str, &str>) -> Result<Unit, String> {
    let id = u["id"].as_str().ok_or("a unit without id")?.to_string();
    let package = u["package"]
        .as_str()
        .ok_or_else(|| format!("{id}: no package"))?
        .to_string();
    let codebase = codebase_of
        .get(package.as_str())
        .ok_or_else(|| format!("{id}: unknown package {package}"))?
        .to_string();
    let strs = |y: &Yaml| -> Vec<String> {
        y.as_vec()
            .map(|v| {
                v.iter()
                    .filter_map(|x| x.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    let flow_key = match u["flow_key"].as_vec() {
        None => None,
        Some(v) => {
            let mut k = v
                .iter()
                .map(|f| {
                    let name = f
                        .as_str()
                        .ok_or_else(|| format!("{id}: a flow_key field is not a name"))?;
                    Field::from_str(name).map_err(|e| format!("{id}: {e}"))
                })
                .collect::<Result<Vec<Field>, String>>()?;
            k.sort();
            Some(k)
        }
    };
    let intensity = u["intensity"]
        .as_str()
        .map(|s| Intensity::from_str(s).map_err(|e| format!("{id}: {e}")))
        .transpose()?;
    let why = QUESTIONS
        .iter()
        .filter_map(|q| {
            u[format!("{q}_why").as_str()]
                .as_str()
                .map(|r| (q.to_string(), r.to_string()))
        })
        .collect();
    Ok(Unit {
        files: strs(&u["files"]),
        include_dirs: strs(&u["include_dirs"]),
        stateful: u["stateful"]
            .as_bool()
            .ok_or_else(|| format!("{id}: stateful is not a bool"))?,
        flow_key,
        intensity,
        pointer_chasing: u["pointer_chasing"].as_bool(),
        symmetric: u["symmetric"].as_bool(),
        splittable: u["splittable"].as_bool(),
        why,
        codebase,
        id,
        package,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PACKAGES: &str = "packages:\n  - {name: pkg, codebase: base}\n";

    #[test]
    fn a_unit_reads_with_its_sorted_key_and_reasons() {
        let text = format!(
            "{PACKAGES}units:\n  - id: a\n    package: pkg\n    files: [x.c, y.h]\n    \
             include_dirs: [inc]\n    stateful: true\n    stateful_why: a table\n    \
             flow_key: [dst_ip, src_ip]\n    intensity: per-packet\n    pointer_chasing: null\n"
        );
        let u = &parse(&text).expect("parses")[0];
        assert_eq!((u.id.as_str(), u.codebase.as_str()), ("a", "base"));
        assert_eq!(u.files, ["x.c", "y.h"]);
        assert_eq!(u.include_dirs, ["inc"]);
        let mut key = vec![
            Field::from_str("dst_ip").unwrap(),
            Field::from_str("src_ip").unwrap(),
        ];
        key.sort();
        assert_eq!(u.flow_key.as_deref(), Some(key.as_slice()));
        assert!(u.intensity.is_some() && u.pointer_chasing.is_none());
        assert_eq!(u.why["stateful"], "a table");
        let (files, incs) = unit_paths(Path::new("/c"), u);
        assert_eq!(files[0], Path::new("/c/pkg/x.c"));
        assert_eq!(incs[0], Path::new("/c/pkg/inc"));
    }

    #[test]
    fn schema_errors_name_the_unit() {
        for (unit, want) in [
            (
                "- id: a\n    package: other\n    stateful: false\n",
                "a: unknown package other",
            ),
            (
                "- id: b\n    package: pkg\n    stateful: maybe\n",
                "b: stateful is not a bool",
            ),
            ("- package: pkg\n    stateful: false\n", "a unit without id"),
            (
                "- id: c\n    package: pkg\n    stateful: true\n    flow_key: [vlan9]\n",
                "c: ",
            ),
        ] {
            let e = parse(&format!("{PACKAGES}units:\n  {unit}")).expect_err(want);
            assert!(e.starts_with(want), "{e} (want {want})");
        }
        assert!(parse("units: []\n").is_err(), "no packages list");
    }
}
