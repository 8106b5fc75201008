//! Finding and analyzing the sources of the elements a FastClick
//! configuration uses, for `nfc build config.click --source-root DIR`.
//!
//! An element class `IFlowCounter` is found where a C++ file under the source
//! root declares `class IFlowCounter`; the declaring file and its sibling with
//! the same stem (`.hh`/`.cc`) are analyzed together as one NF. Classes not
//! found (framework elements such as `Classifier`) are left alone.

use crate::driver::{self, AnalyzeOptions};
use crate::Failure;
use nfc_core::{Diagnostic, Facts};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const EXTS: &[&str] = &["hh", "h", "hpp", "cc", "cpp", "cxx"];
/// Files larger than this are not element sources (generated tables, amalgamations).
const MAX_FILE_BYTES: u64 = 2 << 20;

fn walk(dir: &Path, depth: u32, out: &mut Vec<PathBuf>) {
    if depth > 12 {
        return;
    }
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, depth + 1, out);
        } else if p
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| EXTS.contains(&e))
            && p.metadata()
                .map(|m| m.len() <= MAX_FILE_BYTES)
                .unwrap_or(false)
        {
            out.push(p);
        }
    }
}

/// True when `text` declares `class <name>` (or `struct <name>`) as a whole word.
fn declares(text: &str, name: &str) -> bool {
    for kw in ["class ", "struct "] {
        let pat = format!("{kw}{name}");
        let mut from = 0;
        while let Some(i) = text[from..].find(&pat) {
            let end = from + i + pat.len();
            let next = text[end..].chars().next();
            let before_ok = from + i == 0
                || !text[..from + i].ends_with(|c: char| c.is_alphanumeric() || c == '_');
            if before_ok && !next.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                // A declaration, not a forward declaration `class X;`.
                if !text[end..].trim_start().starts_with(';') {
                    return true;
                }
            }
            from = end;
        }
    }
    false
}

/// Facts per analysed element (by element name), and the warnings on the way.
pub type ElementFacts = (Vec<(String, Facts)>, Vec<Diagnostic>);

/// Analyze every named element of `text` whose class source is under `root`.
pub fn analyze_click_elements(
    text: &str,
    file: &str,
    root: &Path,
    opts: &AnalyzeOptions,
) -> Result<ElementFacts, Failure> {
    let (config, mut diags) = nfc_core::click::parse(text, file);
    if nfc_core::diag::has_errors(&diags) {
        return Err(Failure::Diagnostics(diags));
    }
    if !root.is_dir() {
        return Err(Failure::diag(Diagnostic::error(
            "E0502",
            format!("source root {} is not a directory", root.display()),
        )));
    }
    let mut files = vec![];
    walk(root, 0, &mut files);
    let texts: Vec<(PathBuf, String)> = files
        .into_iter()
        .filter_map(|p| std::fs::read_to_string(&p).ok().map(|t| (p, t)))
        .collect();
    let mut by_class: BTreeMap<String, Option<Vec<PathBuf>>> = BTreeMap::new();
    let mut out = vec![];
    for (name, class, _, _) in config.instances() {
        let Some(name) = name else { continue };
        let sources = by_class
            .entry(class.to_string())
            .or_insert_with(|| {
                let decl = texts.iter().find(|(_, t)| declares(t, class))?;
                let stem = decl.0.with_extension("");
                let mut set: Vec<PathBuf> = texts
                    .iter()
                    .filter(|(p, _)| p.with_extension("") == stem)
                    .map(|(p, _)| p.clone())
                    .collect();
                set.sort();
                Some(set)
            })
            .clone();
        let Some(sources) = sources else { continue };
        let (mut facts, d) = driver::analyze_paths(Some(name), &sources, opts)?;
        facts.nf = name.to_string();
        diags.extend(d);
        out.push((name.to_string(), facts));
    }
    if out.is_empty() {
        diags.push(
            Diagnostic::warning(
                "W0503",
                format!(
                    "no element class of {file} was found under {}",
                    root.display()
                ),
            )
            .with_hint("point --source-root at the directory holding the elements' .hh/.cc files"),
        );
    }
    Ok((out, diags))
}

#[cfg(test)]
mod tests {
    use super::declares;

    #[test]
    fn finds_class_declarations_not_mentions() {
        assert!(declares(
            "class IFlowCounter : public Element {",
            "IFlowCounter"
        ));
        assert!(!declares("class IFlowCounterX {", "IFlowCounter"));
        assert!(!declares("class IFlowCounter;", "IFlowCounter"));
        assert!(!declares("// uses IFlowCounter", "IFlowCounter"));
    }
}
