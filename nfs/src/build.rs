//! Compiling NF sources with clang-19: a shared object for the runtime
//! (`-O2 -fPIC -shared`) and LLVM IR for the analyzer and reducer (`-S
//! -emit-llvm -O0 -Xclang -disable-O0-optnone -g`, several sources linked
//! with llvm-link). Outputs are cached in `out_dir/<name>-<hash>/`, where the
//! hash is a sha256 over the source closure (the sources and every header
//! they `#include "..."`, transitively), the flags and the compiler path, so
//! an unchanged NF is never rebuilt and a changed header always is.

use crate::{include_dir, NfsError};
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// How to build an NF.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildOptions {
    /// Directory for outputs (a cache; created if missing).
    pub out_dir: PathBuf,
    /// Build the shared object with `-fsanitize=address,undefined`.
    pub sanitize: bool,
    /// Extra flags for both compilations (e.g. `-Wall -Wextra -Werror`, `-DX=1`).
    pub extra_cflags: Vec<String>,
}

/// The outputs of [`build`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuiltNf {
    pub name: String,
    /// The shared object exporting the nf.h entry points.
    pub so: PathBuf,
    /// Unoptimised, debug-annotated LLVM IR of all sources (one module).
    pub ll: PathBuf,
}

const CLANG_CANDIDATES: &[&str] = &[
    "/usr/bin/clang-19",
    "/usr/lib/llvm-19/bin/clang",
    "/usr/local/bin/clang-19",
    "/opt/llvm-19/bin/clang",
];

/// Locate clang-19.
pub fn clang() -> Result<PathBuf, NfsError> {
    CLANG_CANDIDATES
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
        .ok_or_else(|| NfsError::ClangNotFound {
            searched: CLANG_CANDIDATES.join(", "),
        })
}

/// llvm-link from the same LLVM installation as `clang`.
fn llvm_link(clang: &Path) -> PathBuf {
    let beside = clang.with_file_name(if clang.ends_with("clang") {
        "llvm-link"
    } else {
        "llvm-link-19"
    });
    if beside.is_file() {
        beside
    } else {
        PathBuf::from("/usr/lib/llvm-19/bin/llvm-link")
    }
}

/// The sources and every local header they include (transitively), sorted.
/// Headers are resolved like clang resolves `#include "x"`: next to the
/// including file, then in `include_dirs`. System headers are not followed.
pub fn source_closure(sources: &[PathBuf], include_dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut seen = BTreeSet::new();
    let mut todo: Vec<PathBuf> = sources.to_vec();
    while let Some(file) = todo.pop() {
        if !seen.insert(file.clone()) {
            continue;
        }
        let Ok(text) = fs::read_to_string(&file) else {
            continue;
        };
        for line in text.lines() {
            let Some(rest) = line.trim_start().strip_prefix('#') else {
                continue;
            };
            let Some(rest) = rest.trim_start().strip_prefix("include") else {
                continue;
            };
            let Some(rest) = rest.trim_start().strip_prefix('"') else {
                continue;
            };
            let Some(end) = rest.find('"') else { continue };
            let name = &rest[..end];
            let here = file.parent().map(|d| d.join(name));
            let found = here
                .into_iter()
                .chain(include_dirs.iter().map(|d| d.join(name)))
                .find(|p| p.is_file());
            if let Some(p) = found {
                todo.push(p);
            }
        }
    }
    seen.into_iter().collect()
}

fn cache_key(
    name: &str,
    sources: &[PathBuf],
    closure: &[PathBuf],
    clang: &Path,
    opts: &BuildOptions,
) -> Result<String, NfsError> {
    let mut h = Sha256::new();
    h.update(b"nfc-nfs build v1\0");
    h.update(name.as_bytes());
    h.update([0]);
    h.update(clang.to_string_lossy().as_bytes());
    h.update([0, opts.sanitize as u8]);
    for f in &opts.extra_cflags {
        h.update(f.as_bytes());
        h.update([0]);
    }
    for s in sources {
        h.update(b"src\0");
        h.update(s.to_string_lossy().as_bytes());
        h.update([0]);
    }
    for f in closure {
        let bytes = fs::read(f).map_err(|e| NfsError::io(f, e))?;
        h.update(f.to_string_lossy().as_bytes());
        h.update([0]);
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(&bytes);
    }
    Ok(hex::encode(&h.finalize()[..8]))
}

fn run(nf: &str, cmd: &mut Command) -> Result<(), NfsError> {
    let shown = format!("{cmd:?}");
    let out = cmd.output().map_err(|e| NfsError::Compile {
        nf: nf.into(),
        command: shown.clone(),
        stderr: e.to_string(),
    })?;
    if out.status.success() {
        Ok(())
    } else {
        Err(NfsError::Compile {
            nf: nf.into(),
            command: shown,
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        })
    }
}

/// Compile an NF into `opts.out_dir/<name>-<hash>/<name>.{so,ll}`, or
/// return the cached outputs when nothing in the source closure changed.
pub fn build(name: &str, sources: &[PathBuf], opts: &BuildOptions) -> Result<BuiltNf, NfsError> {
    if sources.is_empty() {
        return Err(NfsError::NoSources {
            nf: name.to_string(),
        });
    }
    for s in sources {
        if !s.is_file() {
            return Err(NfsError::io(
                s,
                std::io::Error::new(std::io::ErrorKind::NotFound, "source file not found"),
            ));
        }
    }
    let clang = clang()?;
    let inc = include_dir();
    let closure = source_closure(sources, std::slice::from_ref(&inc));
    let key = cache_key(name, sources, &closure, &clang, opts)?;
    let dir = opts.out_dir.join(format!("{name}-{key}"));
    let so = dir.join(format!("{name}.so"));
    let ll = dir.join(format!("{name}.ll"));
    if so.is_file() && ll.is_file() {
        return Ok(BuiltNf {
            name: name.to_string(),
            so,
            ll,
        });
    }
    fs::create_dir_all(&dir).map_err(|e| NfsError::io(&dir, e))?;
    // Build into unique temporaries and rename, so concurrent builds of the
    // same NF never observe a half-written file.
    // The suffix must be unique per call, not per process: tests build the
    // same NF from several threads at once.
    static BUILD_SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let seq = BUILD_SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = |ext: &str| dir.join(format!(".{name}.{}.{seq}.{ext}", std::process::id()));

    let so_tmp = tmp("so");
    let mut cmd = Command::new(&clang);
    cmd.args(["-std=gnu11", "-O2", "-g", "-fPIC", "-shared"])
        .arg("-I")
        .arg(&inc);
    if opts.sanitize {
        cmd.args([
            "-fsanitize=address,undefined",
            "-fno-omit-frame-pointer",
            "-shared-libsan",
        ]);
    }
    cmd.args(&opts.extra_cflags)
        .args(sources)
        .arg("-o")
        .arg(&so_tmp);
    run(name, &mut cmd)?;

    let mut ll_parts = vec![];
    for (i, src) in sources.iter().enumerate() {
        let out = if sources.len() == 1 {
            tmp("ll")
        } else {
            tmp(&format!("{i}.ll"))
        };
        let mut cmd = Command::new(&clang);
        cmd.args([
            "-std=gnu11",
            "-S",
            "-emit-llvm",
            "-O0",
            "-Xclang",
            "-disable-O0-optnone",
            "-g",
        ])
        .arg("-I")
        .arg(&inc)
        .args(&opts.extra_cflags)
        .arg(src)
        .arg("-o")
        .arg(&out);
        run(name, &mut cmd)?;
        ll_parts.push(out);
    }
    let ll_tmp = if ll_parts.len() == 1 {
        ll_parts.pop().unwrap_or_default()
    } else {
        let linked = tmp("ll");
        let mut cmd = Command::new(llvm_link(&clang));
        cmd.arg("-S").args(&ll_parts).arg("-o").arg(&linked);
        run(name, &mut cmd)?;
        for p in &ll_parts {
            let _ = fs::remove_file(p);
        }
        linked
    };
    fs::rename(&so_tmp, &so).map_err(|e| NfsError::io(&so, e))?;
    fs::rename(&ll_tmp, &ll).map_err(|e| NfsError::io(&ll, e))?;
    Ok(BuiltNf {
        name: name.to_string(),
        so,
        ll,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closure_follows_local_includes() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.c");
        fs::write(
            &a,
            "#include \"b.h\"\n#include <stdio.h>\n  # include \"nf.h\"\n",
        )
        .unwrap();
        fs::write(dir.path().join("b.h"), "#include \"a.c\"\n").unwrap();
        let got = source_closure(std::slice::from_ref(&a), &[include_dir()]);
        assert_eq!(got.len(), 3, "{got:?}");
        assert!(got.contains(&dir.path().join("b.h")));
        assert!(got.contains(&include_dir().join("nf.h")));
    }

    #[test]
    fn compile_errors_carry_clang_stderr_and_cache_hits() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("broken.c");
        fs::write(&src, "int nf_process(void) { return undeclared_thing; }\n").unwrap();
        let opts = BuildOptions {
            out_dir: dir.path().join("out"),
            sanitize: false,
            extra_cflags: vec![],
        };
        let err = build("broken", std::slice::from_ref(&src), &opts)
            .unwrap_err()
            .to_string();
        assert!(err.contains("undeclared_thing"), "{err}");

        fs::write(&src, "#include \"nf.h\"\nint answer(void) { return 42; }\n").unwrap();
        let first = build("ok", std::slice::from_ref(&src), &opts).unwrap();
        assert!(first.so.is_file() && first.ll.is_file());
        let again = build("ok", std::slice::from_ref(&src), &opts).unwrap();
        assert_eq!(first, again, "same closure must hit the cache");
        fs::write(&src, "#include \"nf.h\"\nint answer(void) { return 43; }\n").unwrap();
        let changed = build("ok", &[src], &opts).unwrap();
        assert_ne!(first.so, changed.so, "a changed source must rebuild");
        assert!(build("none", &[], &opts).is_err());
    }
}
