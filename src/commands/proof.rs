//! Options build, explain and run share for the plan proof, forced facts and
//! saved plans.

use nfc::plan_proof::{ProofMode, ProofOptions};
use nfc_core::{Diagnostic, Facts, Plan};
use std::path::{Path, PathBuf};

/// What a failed plan proof does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ProofArg {
    /// Pin every NF whose split the proof rejects shared and place again, until the plan is proven.
    Strict,
    /// Report a rejected plan as a warning and keep it.
    Warn,
    /// Do not prove the plan.
    Off,
}

/// The plan proof (`nfc build`, `nfc explain`, `nfc run`).
#[derive(Debug, Clone, clap::Args)]
pub struct ProofArgs {
    /// Prove the plan by differential execution: the chain single-worker vs as planned, over
    /// traffic built to expose split state, with closed-loop replies.
    #[arg(long, value_enum, default_value_t = ProofArg::Strict)]
    pub plan_proof: ProofArg,
    /// Input packets per proof run (closed-loop replies come on top).
    #[arg(long, default_value_t = nfc::plan_proof::DEFAULT_BUDGET, value_name = "N")]
    pub proof_packets: usize,
    /// Use these facts (a JSON list, as `--emit facts` writes it) instead of analysing the NFs
    /// they name; the plan proof still checks the plan they lead to.
    #[arg(long, value_name = "FILE")]
    pub facts: Option<PathBuf>,
}

impl ProofArgs {
    pub fn options(&self) -> ProofOptions {
        ProofOptions {
            mode: match self.plan_proof {
                ProofArg::Strict => ProofMode::Strict,
                ProofArg::Warn => ProofMode::Warn,
                ProofArg::Off => ProofMode::Off,
            },
            budget: self.proof_packets.max(1),
        }
    }

    /// The facts of `--facts`, or none.
    pub fn facts(&self) -> Result<Vec<Facts>, nfc::Failure> {
        let Some(path) = &self.facts else {
            return Ok(vec![]);
        };
        read_json(
            path,
            "E0302",
            "a JSON list of facts, as `nfc build --emit facts` writes it",
        )
    }
}

/// Read a JSON file into `T`, or a located diagnostic with `code`.
pub fn read_json<T: serde::de::DeserializeOwned>(
    path: &Path,
    code: &str,
    expected: &str,
) -> Result<T, nfc::Failure> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| {
        nfc::Failure::diag(
            Diagnostic::error(code, format!("cannot read {file}: {e}"))
                .with_span(nfc_core::Span::file_only(file.clone())),
        )
    })?;
    serde_json::from_str(&text).map_err(|e| {
        nfc::Failure::diag(
            Diagnostic::error(code, format!("{file} is not {expected}: {e}"))
                .with_span(nfc_core::Span::point(
                    file.clone(),
                    e.line() as u32,
                    e.column() as u32,
                ))
                .with_hint(format!("the file must be {expected}")),
        )
    })
}

/// A saved plan (`nfc build --emit plan` writes `plan.json`).
pub fn read_plan(path: &Path) -> Result<Plan, nfc::Failure> {
    read_json(
        path,
        "E0203",
        "a plan, as `nfc build --emit plan` writes it",
    )
}
