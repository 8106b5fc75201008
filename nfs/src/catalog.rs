//! Discovery of the built-in NFs: every directory `nfs/<name>/` holding a
//! `facts.yaml` and at least one `.c` file is an NF, with its example
//! configs under `configs/`. Click-style C++ elements live apart, under
//! `nfs/click/<element>/`, and are listed by [`click_elements`].

use std::fs;
use std::path::{Path, PathBuf};

/// The `nfs/` directory of this source tree.
pub fn nfs_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The directory holding `nf.h`.
pub fn include_dir() -> PathBuf {
    nfs_root().join("include")
}

/// A built-in C NF.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuiltinNf {
    pub name: String,
    pub dir: PathBuf,
    /// The `.c` files of the NF, sorted.
    pub sources: Vec<PathBuf>,
    pub facts_path: PathBuf,
    /// Example configs (`configs/*.yaml`), sorted.
    pub configs: Vec<PathBuf>,
}

impl BuiltinNf {
    /// `configs/default.yaml`, if the NF ships one.
    pub fn default_config(&self) -> Option<PathBuf> {
        self.configs
            .iter()
            .find(|p| p.file_stem().is_some_and(|s| s == "default"))
            .cloned()
    }
}

/// A Click-style C++ element under `nfs/click/<name>/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClickElement {
    pub name: String,
    pub dir: PathBuf,
    /// `.cc` and `.hh` files of the element, sorted.
    pub sources: Vec<PathBuf>,
    pub facts_path: PathBuf,
}

fn files_with_ext(dir: &Path, exts: &[&str]) -> Vec<PathBuf> {
    let Ok(rd) = fs::read_dir(dir) else {
        return vec![];
    };
    let mut out: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.is_file()
                && p.extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| exts.contains(&e))
        })
        .collect();
    out.sort();
    out
}

fn nf_at(dir: &Path) -> Option<BuiltinNf> {
    let facts_path = dir.join("facts.yaml");
    if !facts_path.is_file() {
        return None;
    }
    let sources = files_with_ext(dir, &["c"]);
    if sources.is_empty() {
        return None;
    }
    Some(BuiltinNf {
        name: dir.file_name()?.to_str()?.to_string(),
        dir: dir.to_path_buf(),
        sources,
        facts_path,
        configs: files_with_ext(&dir.join("configs"), &["yaml", "yml"]),
    })
}

fn subdirs(dir: &Path) -> Vec<PathBuf> {
    let Ok(rd) = fs::read_dir(dir) else {
        return vec![];
    };
    let mut out: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    out.sort();
    out
}

/// Every built-in NF, sorted by name.
pub fn catalog() -> Vec<BuiltinNf> {
    subdirs(&nfs_root())
        .iter()
        .filter_map(|d| nf_at(d))
        .collect()
}

/// The built-in NF called `name`, if any.
pub fn builtin(name: &str) -> Option<BuiltinNf> {
    if name.is_empty() || name.contains(['/', '\\', '.']) {
        return None;
    }
    nf_at(&nfs_root().join(name))
}

/// Every Click-style element under `nfs/click/`, sorted by name.
pub fn click_elements() -> Vec<ClickElement> {
    subdirs(&nfs_root().join("click"))
        .into_iter()
        .filter_map(|dir| {
            let facts_path = dir.join("facts.yaml");
            let sources = files_with_ext(&dir, &["cc", "hh"]);
            if !facts_path.is_file() || sources.is_empty() {
                return None;
            }
            Some(ClickElement {
                name: dir.file_name()?.to_str()?.to_string(),
                dir,
                sources,
                facts_path,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_rejects_paths() {
        assert!(builtin("../nfs").is_none());
        assert!(builtin("").is_none());
        assert!(builtin("include").is_none(), "include/ has no facts.yaml");
        assert!(builtin("no_such_nf").is_none());
    }

    #[test]
    fn catalog_is_sorted_and_complete() {
        let names: Vec<String> = catalog().into_iter().map(|n| n.name).collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted);
        assert!(names.len() >= 16, "{names:?}");
        for nf in catalog() {
            assert!(
                nf.default_config().is_some(),
                "{} has no configs/default.yaml",
                nf.name
            );
            assert_eq!(builtin(&nf.name).as_ref(), Some(&nf));
        }
    }
}
