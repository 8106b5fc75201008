//! Shared by the built-in NF tests and the bench: locate a built-in NF of
//! `nfs/` and turn one of its `configs/*.yaml` into nf_init key/values exactly
//! as the CLI does — the YAML goes through `nfc_core`'s chain parser (as the
//! `config:` of an instance in a one-NF chain.yaml) and then
//! `ConfigValue::flatten()`.

#![allow(dead_code)]

use nfc_reducer::ReduceInput;
use std::path::{Path, PathBuf};

/// The workspace's `nfs/` directory.
pub fn nfs_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../nfs")
}

/// The C source of built-in NF `name` (`nfs/<name>/<name>.c`).
pub fn builtin_source(name: &str) -> PathBuf {
    nfs_root().join(name).join(format!("{name}.c"))
}

/// A config file of built-in NF `name` (`nfs/<name>/configs/<file>`).
pub fn builtin_config_path(name: &str, file: &str) -> PathBuf {
    nfs_root().join(name).join("configs").join(file)
}

/// Flatten a config YAML file for built-in NF `nf` through nfc-core's chain
/// parser, as `nfc build` does for `config:` in chain.yaml.
pub fn flatten_config_file(nf: &str, path: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut chain = format!("name: cfg\nnfs:\n  - id: x\n    nf: {nf}\n    config:\n");
    let mut any = false;
    for line in text.lines() {
        if !line.trim().is_empty() && !line.trim_start().starts_with('#') {
            any = true;
        }
        chain.push_str("      ");
        chain.push_str(line);
        chain.push('\n');
    }
    if !any {
        chain.push_str("      {}\n");
    }
    chain.push_str("chain: [x]\n");
    let catalog = vec![nf.to_string()];
    let (spec, diags) = nfc_core::chain::parse_chain(
        &chain,
        &path.display().to_string(),
        Path::new("."),
        &catalog,
    );
    let spec = spec.unwrap_or_else(|| panic!("{}: {diags:?}", path.display()));
    spec.nf("x").expect("instance").config.flatten()
}

/// A `ReduceInput` for built-in NF `nf` with its config file `config`
/// (a path; relative names are looked up in `nfs/<nf>/configs/`).
pub fn builtin_input(id: &str, nf: &str, config: &Path) -> ReduceInput {
    let path = if config.is_absolute() {
        config.to_path_buf()
    } else {
        builtin_config_path(nf, &config.display().to_string())
    };
    ReduceInput {
        id: id.into(),
        sources: vec![builtin_source(nf)],
        config: flatten_config_file(nf, &path),
        ..Default::default()
    }
}
