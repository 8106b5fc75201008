//! Turning user paths into an [`AnalysisInput`]: a directory is one NF (all C
//! and C++ sources and headers in it), files are taken as given. Also computes
//! the NF's source closure (its files plus the local headers they include,
//! found next to the including file or in an `include/` directory of an
//! ancestor), which both the parser and the cache key use.

use crate::{AnalysisInput, AnalyzeError};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const SOURCE_EXTS: &[&str] = &["c", "cc", "cpp", "cxx", "h", "hh", "hpp", "hxx"];

fn is_source(p: &Path) -> bool {
    p.extension()
        .and_then(|e| e.to_str())
        .map(|e| SOURCE_EXTS.contains(&e))
        .unwrap_or(false)
}

/// Build an input from paths; a directory contributes its source files
/// (non-recursive, sorted). The name defaults to the directory or file stem.
pub fn input_from_paths(
    name: Option<&str>,
    paths: &[PathBuf],
) -> Result<AnalysisInput, AnalyzeError> {
    if paths.is_empty() {
        return Err(AnalyzeError::NoSources {
            what: name.unwrap_or("<unnamed>").to_string(),
        });
    }
    let mut files = vec![];
    for p in paths {
        let meta = std::fs::metadata(p).map_err(|e| AnalyzeError::Io {
            path: p.clone(),
            source: e,
        })?;
        if meta.is_dir() {
            let rd = std::fs::read_dir(p).map_err(|e| AnalyzeError::Io {
                path: p.clone(),
                source: e,
            })?;
            let mut here: Vec<PathBuf> = rd
                .filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|q| q.is_file() && is_source(q))
                .collect();
            here.sort();
            files.extend(here);
        } else {
            files.push(p.clone());
        }
    }
    if files.is_empty() {
        return Err(AnalyzeError::NoSources {
            what: paths[0].display().to_string(),
        });
    }
    let name = match name {
        Some(n) => n.to_string(),
        None => {
            let p = &paths[0];
            let stem = if p.is_dir() {
                p.file_name()
            } else {
                p.file_stem()
            };
            stem.and_then(|s| s.to_str()).unwrap_or("nf").to_string()
        }
    };
    Ok(AnalysisInput {
        name,
        files,
        framework: None,
    })
}

/// `#include "x"` / `#include <x>` targets of a source text: (target,
/// quoted, 1-based line).
fn includes(text: &str) -> Vec<(String, bool, u32)> {
    let mut out = vec![];
    for (lineno, line) in text.lines().enumerate() {
        let lineno = lineno as u32 + 1;
        let t = line.trim_start();
        let Some(rest) = t.strip_prefix('#') else {
            continue;
        };
        let rest = rest.trim_start();
        let Some(rest) = rest.strip_prefix("include") else {
            continue;
        };
        let rest = rest.trim();
        if let Some(r) = rest.strip_prefix('"') {
            if let Some(end) = r.find('"') {
                out.push((r[..end].to_string(), true, lineno));
            }
        } else if let Some(r) = rest.strip_prefix('<') {
            if let Some(end) = r.find('>') {
                out.push((r[..end].to_string(), false, lineno));
            }
        }
    }
    out
}

/// Resolve an include next to the including file, then in the given include
/// directories, then in `include/` directories of up to three ancestors.
/// System headers are not searched.
fn resolve_include(
    from: &Path,
    inc: &str,
    quoted: bool,
    include_dirs: &[PathBuf],
) -> Option<PathBuf> {
    let dir = from.parent()?;
    if quoted {
        let c = dir.join(inc);
        if c.is_file() {
            return Some(c);
        }
    }
    if let Some(c) = include_dirs
        .iter()
        .map(|d| d.join(inc))
        .find(|c| c.is_file())
    {
        return Some(c);
    }
    let mut cur = Some(dir);
    for _ in 0..3 {
        let d = cur?;
        let c = d.join("include").join(inc);
        if c.is_file() {
            return Some(c);
        }
        cur = d.parent();
    }
    None
}

/// An NF's files and the headers they include: (path, contents).
pub type SourceClosure = Vec<(PathBuf, String)>;

/// A quoted `#include` that resolved nowhere: a header of the NF's own
/// project (system headers use `<...>` and are not expected).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingHeader {
    pub name: String,
    pub from: PathBuf,
    pub line: u32,
}

/// Turn missing headers into located warnings (one per header name); the
/// names go to the static backend, which answers "unknown" where they make
/// an answer a guess.
pub fn report_missing_headers(
    nf: &str,
    missing: &[MissingHeader],
    diags: &mut Vec<nfc_core::diag::Diagnostic>,
) -> Vec<String> {
    use nfc_core::diag::{Diagnostic, Span};
    let mut names: Vec<String> = vec![];
    for m in missing {
        if names.contains(&m.name) {
            continue;
        }
        names.push(m.name.clone());
        diags.push(
            Diagnostic::warning(
                "A0106",
                format!("`{nf}`: header \"{}\" not found", m.name),
            )
            .with_span(Span::point(m.from.display().to_string(), m.line, 1))
            .with_hint("put the header next to the NF or pass its directory with -I; what it declares is invisible, so answers that depend on it are \"unknown\""),
        );
    }
    names
}

/// Where the model of the kernel's lists appears in evidence.
pub const KERNEL_LIST_MODEL: &str = "nfc-model/linux/list.h";

/// A system include of the Linux kernel's own tree (`<linux/…>`,
/// `<net/…>`): code written against the kernel, whose lists come from
/// `linux/list.h` through nearly every such header.
fn is_kernel_include(inc: &str) -> bool {
    inc.starts_with("linux/") || inc.starts_with("net/")
}

/// The NF's files plus the local headers they (transitively) include, in a
/// stable order: (path, contents), and the quoted includes found nowhere.
///
/// When a kernel header is included and not found (out-of-tree kernel
/// code analysed without the kernel's headers), nfc's model of the kernel
/// lists (`models/linux/list.h`) comes first, so a definition of the NF's
/// own with the same name, read later, replaces the model's.
pub fn closure(
    files: &[PathBuf],
    include_dirs: &[PathBuf],
) -> Result<(SourceClosure, Vec<MissingHeader>), AnalyzeError> {
    let mut seen: BTreeSet<PathBuf> = BTreeSet::new();
    let mut missing = vec![];
    let mut out = vec![];
    let mut kernel_code = false;
    let mut todo: Vec<PathBuf> = files.to_vec();
    todo.reverse();
    while let Some(p) = todo.pop() {
        let canon = std::fs::canonicalize(&p).unwrap_or_else(|_| p.clone());
        if !seen.insert(canon) {
            continue;
        }
        let bytes = std::fs::read(&p).map_err(|e| AnalyzeError::Io {
            path: p.clone(),
            source: e,
        })?;
        // Valid UTF-8 (nearly every source) is taken as it is, without the
        // copy `from_utf8_lossy` makes.
        let text = String::from_utf8(bytes)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        let mut incs = vec![];
        for (inc, quoted, line) in includes(&text) {
            match resolve_include(&p, &inc, quoted, include_dirs) {
                Some(r) => incs.push(r),
                None if quoted => missing.push(MissingHeader {
                    name: inc,
                    from: p.clone(),
                    line,
                }),
                None => kernel_code |= is_kernel_include(&inc),
            }
        }
        out.push((p, text));
        for r in incs.into_iter().rev() {
            todo.push(r);
        }
    }
    if kernel_code {
        out.insert(
            0,
            (
                PathBuf::from(KERNEL_LIST_MODEL),
                include_str!("../models/linux/list.h").to_string(),
            ),
        );
    }
    Ok((out, missing))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_paths_are_errors_not_panics() {
        let d = tempfile::tempdir().unwrap();
        let missing = d.path().join("nope");
        assert!(matches!(
            input_from_paths(None, &[missing]),
            Err(AnalyzeError::Io { .. })
        ));
        assert!(matches!(
            input_from_paths(None, &[d.path().to_path_buf()]),
            Err(AnalyzeError::NoSources { .. })
        ));
        assert!(matches!(
            input_from_paths(Some("x"), &[]),
            Err(AnalyzeError::NoSources { .. })
        ));
        std::fs::write(d.path().join("a.c"), "int x;").unwrap();
        std::fs::write(d.path().join("notes.txt"), "x").unwrap();
        let i = input_from_paths(None, &[d.path().to_path_buf()]).unwrap();
        assert_eq!(i.files.len(), 1);
    }

    #[test]
    fn include_lines_are_found() {
        let incs =
            includes("#include \"nf.h\"\n  # include <click/element.hh>\n#include <stdio.h>\n");
        assert_eq!(
            incs,
            vec![
                ("nf.h".into(), true, 1),
                ("click/element.hh".into(), false, 2),
                ("stdio.h".into(), false, 3)
            ]
        );
    }

    #[test]
    fn closure_follows_local_headers() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("include")).unwrap();
        std::fs::create_dir_all(d.path().join("nf")).unwrap();
        std::fs::write(d.path().join("include/api.h"), "int api;\n").unwrap();
        std::fs::write(d.path().join("nf/local.h"), "#include <api.h>\n").unwrap();
        std::fs::write(
            d.path().join("nf/nf.c"),
            "#include \"local.h\"\n#include <stdio.h>\n",
        )
        .unwrap();
        let (c, missing) = closure(&[d.path().join("nf/nf.c")], &[]).unwrap();
        assert!(missing.is_empty());
        let names: Vec<String> = c
            .iter()
            .map(|(p, _)| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, vec!["nf.c", "local.h", "api.h"]);
    }

    #[test]
    fn include_dirs_resolve_headers_and_unresolved_quoted_ones_are_reported() {
        let d = tempfile::tempdir().unwrap();
        let inc = d.path().join("sdk");
        std::fs::create_dir_all(&inc).unwrap();
        std::fs::write(inc.join("nf.h"), "struct nf_ctx;\n").unwrap();
        let nf = d.path().join("user/my.c");
        std::fs::create_dir_all(nf.parent().unwrap()).unwrap();
        std::fs::write(
            &nf,
            "#include \"nf.h\"\n#include <stdio.h>\n#include \"gone.h\"\n",
        )
        .unwrap();
        let (c, missing) = closure(std::slice::from_ref(&nf), &[]).unwrap();
        assert_eq!(c.len(), 1);
        assert_eq!(
            missing
                .iter()
                .map(|m| (m.name.as_str(), m.line))
                .collect::<Vec<_>>(),
            vec![("nf.h", 1), ("gone.h", 3)]
        );
        let (c, missing) = closure(std::slice::from_ref(&nf), &[inc]).unwrap();
        assert_eq!(c.len(), 2);
        assert_eq!(missing.len(), 1);
        assert_eq!(missing[0].name, "gone.h");
    }
}
