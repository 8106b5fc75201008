//! The driver: calls nfc's stages in order over plain data. Each function
//! takes typed input and returns typed output (or diagnostics), so callers
//! can run one stage, all of them, or loop (e.g. re-place after a
//! prediction) without any stage knowing about another.

use crate::Failure;
use nfc_core::chain::{parse_chain, parse_chain_file, ChainSpec};
use nfc_core::diag::has_errors;
use nfc_core::Diagnostic;
use std::path::Path;

/// Names of the built-in NFs (from `nfs/`).
pub fn builtin_names() -> Vec<String> {
    nfc_nfs::catalog().into_iter().map(|nf| nf.name).collect()
}

/// Load and validate a chain file. Warnings come back with the spec.
pub fn load_chain(path: &Path) -> Result<(ChainSpec, Vec<Diagnostic>), Failure> {
    let names = builtin_names();
    let (spec, diags) = parse_chain_file(path, &names);
    match spec {
        Some(spec) if !has_errors(&diags) => Ok((spec, diags)),
        _ => Err(Failure::Diagnostics(diags)),
    }
}

/// Validate chain text (relative paths resolve against the current directory).
pub fn parse_chain_text(text: &str, file: &str) -> Result<ChainSpec, Failure> {
    let names = builtin_names();
    let (spec, diags) = parse_chain(text, file, Path::new("."), &names);
    match spec {
        Some(spec) if !has_errors(&diags) => Ok(spec),
        _ => Err(Failure::Diagnostics(diags)),
    }
}
