//! Fingerprint of the analyzer's own sources, part of the facts-cache key:
//! any change to the analysis invalidates cached facts, with no version to
//! remember to bump.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn main() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    println!("cargo:rerun-if-changed={}", src.display());
    let mut files = vec![];
    rust_files(&src, &mut files);
    files.sort();
    // FNV-1a, 64 bits: a fingerprint, not a security boundary.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for f in &files {
        let rel = f
            .strip_prefix(&src)
            .unwrap_or(f)
            .to_string_lossy()
            .into_owned();
        for b in rel
            .bytes()
            .chain([0u8])
            .chain(std::fs::read(f).unwrap_or_default())
            .chain([0u8])
        {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    println!("cargo:rustc-env=NFC_ANALYZER_SOURCE_HASH={h:016x}");
}
