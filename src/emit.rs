//! Emitters turn the stages' outputs into deployable artefacts for each
//! target: a FastClick configuration, a flash-rt deployment, or an Agilio
//! offload plan.

pub mod agilio;
pub mod fastclick;
pub mod fastclick_sources;
pub mod flash;

use crate::driver::{self, Workspace};
use crate::Failure;
use nfc_core::{ChainSpec, Diagnostic, Facts};
use std::path::{Path, PathBuf};

/// Build the chain's NFs and write the flash-rt deployment and Kubernetes
/// manifests into `out_dir`. Returns the files written and the emitter's
/// notes (defaults taken, modes changed, CPU pinning) for the operator.
pub fn flash_target(
    chain: &ChainSpec,
    facts: &[Facts],
    ws: &Workspace,
    out_dir: &Path,
) -> Result<(Vec<PathBuf>, Vec<String>), Failure> {
    let objects = driver::build_objects(chain, ws)?;
    // The deployment names shared objects by absolute path, so it runs from any directory.
    let objs: Vec<(String, PathBuf)> = objects
        .iter()
        .map(|(id, b)| {
            (
                id.clone(),
                std::fs::canonicalize(&b.so).unwrap_or_else(|_| b.so.clone()),
            )
        })
        .collect();
    // The analyzer's per-packet cost balances NFs over `resources.cpus`.
    let opts = flash::FlashOptions {
        nf_costs: facts
            .iter()
            .filter_map(|f| Some((f.nf.clone(), f.per_packet_cost.or(f.source_cost)? as f64)))
            .collect(),
        ..flash::FlashOptions::default()
    };
    let emitted = flash::emit_flash_with(chain, &objs, out_dir, &opts).map_err(|e| {
        Failure::diag(
            Diagnostic::error("E0510", e.to_string())
                .with_hint("see docs/chain-format.md, `targets.flash`"),
        )
    })?;
    let mut written = vec![
        emitted.deployment_path.clone(),
        emitted.monitor_manifest.clone(),
    ];
    written.extend(emitted.nf_manifests.iter().map(|(_, p)| p.clone()));
    Ok((written, emitted.notes))
}
