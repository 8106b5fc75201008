//! chain.yaml parser (being written).
use super::ChainSpec;
use crate::Diagnostic;
use std::path::Path;

/// Names of built-in NFs, for validating `nf:` references.
pub trait BuiltinCatalog {
    fn contains(&self, name: &str) -> bool;
    fn names(&self) -> Vec<String>;
}

pub fn parse_chain(_text: &str, _file: &str, _base: &Path, _catalog: &dyn BuiltinCatalog) -> (Option<ChainSpec>, Vec<Diagnostic>) {
    (None, vec![Diagnostic::error("E0000", "chain parsing is not available yet")])
}

pub fn parse_chain_file(path: &Path, catalog: &dyn BuiltinCatalog) -> (Option<ChainSpec>, Vec<Diagnostic>) {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    parse_chain(&text, &path.display().to_string(), path.parent().unwrap_or(Path::new(".")), catalog)
}
