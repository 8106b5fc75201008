//! Emitters turn the stages' outputs into deployable artefacts for each
//! target: a FastClick configuration, a flash-rt deployment, or an Agilio
//! offload plan.

pub mod agilio;
pub mod agilio_models;
pub mod agilio_profile;
pub mod fastclick;
pub mod fastclick_package;
pub mod fastclick_sources;
pub mod flash;
pub mod rss;

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

/// Names of the RSS programming files the FastClick target writes.
pub const FLOW_RULES_FILE: &str = "flow-rules.txt";
pub const ETHTOOL_FILE: &str = "ethtool.sh";
pub const RSS_CONF_FILE: &str = "rss_conf.json";
/// The element package's directory beside the `.click`.
pub const PACKAGE_DIR: &str = "nfc-elements";

/// Write the plan's RSS programming into `out_dir`: the flow-rules file
/// (FastClick's `FLOW_RULES_FILE`, testpmd), the ethtool script and the
/// rte_eth_rss_conf JSON.
pub fn rss_files(
    chain_name: &str,
    plan: &nfc_core::Plan,
    out_dir: &Path,
) -> Result<Vec<PathBuf>, Failure> {
    let files = [
        (FLOW_RULES_FILE, rss::flow_rules_file(chain_name, plan)),
        (ETHTOOL_FILE, rss::ethtool_script(chain_name, plan)),
        (
            RSS_CONF_FILE,
            serde_json::to_string_pretty(&rss::rss_conf_json(plan)).unwrap_or_default() + "\n",
        ),
    ];
    let mut written = vec![];
    for (name, text) in files {
        let path = out_dir.join(name);
        std::fs::write(&path, text)
            .map_err(|e| Failure::io(format!("writing {}", path.display()), e))?;
        written.push(path);
    }
    Ok(written)
}

/// The FastClick target: `<chain>.click` using only upstream element classes
/// and parameters plus the generated package's `Nfc*` classes, the package
/// (`nfc-elements/`, hosting each NF's nf.h object with the plan's state
/// layout), and the RSS programming files. The configuration is checked
/// against upstream's names before it is written (E0511).
pub fn fastclick_target(
    chain: &ChainSpec,
    _facts: &[Facts],
    plan: &nfc_core::Plan,
    ws: &Workspace,
    out_dir: &Path,
) -> Result<Vec<PathBuf>, Failure> {
    std::fs::create_dir_all(out_dir)
        .map_err(|e| Failure::io(format!("creating {}", out_dir.display()), e))?;
    let objects = driver::build_objects(chain, ws)?;
    // Each element declares the output ports its NF really uses (after
    // nf_init), and the configuration wires every one of them.
    let scratch = ws.dir.join("scratch");
    std::fs::create_dir_all(&scratch)
        .map_err(|e| Failure::io(format!("creating {}", scratch.display()), e))?;
    let mut wired = chain.clone();
    for inst in wired.nfs.iter_mut() {
        if let Some((_, b)) = objects.iter().find(|(id, _)| *id == inst.id.0) {
            let lib = flash_rt::offline::abi::NfLibrary::load(
                &inst.id.0,
                &b.so,
                &inst.config.flatten(),
                &scratch,
            )
            .map_err(|e| driver::exec_failure(e, chain))?;
            inst.ports = inst.ports.max(lib.n_ports);
        }
    }
    let objs: Vec<(String, PathBuf)> = objects
        .iter()
        .map(|(id, b)| (id.clone(), b.so.clone()))
        .collect();
    let ports = |id: &str| wired.nf(id).map_or(1, |n| n.ports);
    let package =
        fastclick_package::write_package(&wired, plan, &objs, &ports, &out_dir.join(PACKAGE_DIR))?;
    let text = fastclick::emit_chain(&wired, plan, Some(FLOW_RULES_FILE));
    let file = format!("{}.click", chain.name);
    let own: Vec<String> = package.iter().map(|e| e.class.clone()).collect();
    let problems = fastclick::validate_upstream(&text, &file, &own);
    if !problems.is_empty() {
        return Err(Failure::Diagnostics(problems));
    }
    let path = out_dir.join(&file);
    std::fs::write(&path, text)
        .map_err(|e| Failure::io(format!("writing {}", path.display()), e))?;
    let mut written = vec![path];
    written.extend(rss_files(&chain.name, plan, out_dir)?);
    written.extend(package.into_iter().flat_map(|e| e.files));
    Ok(written)
}
