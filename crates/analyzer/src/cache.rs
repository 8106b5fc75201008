//! The feature tracker (FlowMage §3): facts are cached on disk, keyed by a
//! sha256 over the NF's source closure (file names and contents, including
//! local headers), the analyzer version and the backend, so an NF is
//! re-analysed only when its code (or the analysis) changes.

use crate::AnalyzeError;
use nfc_core::diag::Diagnostic;
use nfc_core::facts::Facts;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// Version of the analysis: the crate version and a fingerprint of the
/// analyzer's sources (build.rs), so any change to it invalidates the cache.
pub const ANALYZER_VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    "+",
    env!("NFC_ANALYZER_SOURCE_HASH")
);

/// The cache key of an NF's sources for a backend tag.
pub fn cache_key(name: &str, closure: &[(PathBuf, String)], backend_tag: &str) -> String {
    let mut h = Sha256::new();
    h.update(ANALYZER_VERSION.as_bytes());
    h.update([0]);
    h.update(backend_tag.as_bytes());
    h.update([0]);
    h.update(name.as_bytes());
    h.update([0]);
    for (p, text) in closure {
        let file = p
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        h.update(file.as_bytes());
        h.update([0]);
        h.update((text.len() as u64).to_le_bytes());
        h.update(text.as_bytes());
    }
    hex::encode(h.finalize())
}

#[derive(Serialize, Deserialize)]
struct Entry {
    version: String,
    facts: Facts,
    diagnostics: Vec<Diagnostic>,
}

fn path_for(dir: &Path, name: &str, key: &str) -> PathBuf {
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    dir.join(format!("{safe}-{}.json", &key[..16]))
}

/// Load cached facts, if present and readable (a corrupt entry is a miss).
pub fn load(dir: &Path, name: &str, key: &str) -> Option<(Facts, Vec<Diagnostic>)> {
    let bytes = std::fs::read(path_for(dir, name, key)).ok()?;
    let e: Entry = serde_json::from_slice(&bytes).ok()?;
    (e.version == ANALYZER_VERSION).then_some((e.facts, e.diagnostics))
}

/// Store facts (written to a temporary file, then renamed).
pub fn store(
    dir: &Path,
    name: &str,
    key: &str,
    facts: &Facts,
    diags: &[Diagnostic],
) -> Result<(), AnalyzeError> {
    std::fs::create_dir_all(dir).map_err(|e| AnalyzeError::Io {
        path: dir.to_path_buf(),
        source: e,
    })?;
    let e = Entry {
        version: ANALYZER_VERSION.to_string(),
        facts: facts.clone(),
        diagnostics: diags.to_vec(),
    };
    let json = serde_json::to_vec_pretty(&e).map_err(|e| AnalyzeError::Cache {
        message: e.to_string(),
    })?;
    let p = path_for(dir, name, key);
    // Unique per call: threads of one process may store the same NF at once.
    static SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let seq = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = p.with_extension(format!("json.tmp{}-{seq}", std::process::id()));
    std::fs::write(&tmp, json).map_err(|e| AnalyzeError::Io {
        path: tmp.clone(),
        source: e,
    })?;
    std::fs::rename(&tmp, &p).map_err(|e| AnalyzeError::Io {
        path: p.clone(),
        source: e,
    })?;
    Ok(())
}
