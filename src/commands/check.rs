//! `nfc check`: validate chain files. For `check` the diagnostics are the
//! result, so `--format json` prints them on stdout (with each file's
//! verdict), as Ruff's `--output-format json` does; exit 1 when any is an
//! error. The human format keeps them on stderr, rustc-style.

use super::{out, warnings, Format};
use nfc::driver;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Chain files (chain.yaml) to validate.
    #[arg(required = true)]
    pub chains: Vec<PathBuf>,
}

pub fn run(args: Args, fmt: Format) -> anyhow::Result<ExitCode> {
    let mut all_diags = vec![];
    let mut results = vec![];
    for path in &args.chains {
        match driver::load_chain(path) {
            Ok((spec, diags)) => {
                all_diags.extend(diags);
                results.push((path.display().to_string(), Some(spec)));
            }
            Err(nfc::Failure::Diagnostics(d)) => {
                all_diags.extend(d);
                results.push((path.display().to_string(), None));
            }
            Err(e) => return Err(e.into()),
        }
    }
    let failed = nfc_core::diag::has_errors(&all_diags);
    let code = if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    };
    match fmt {
        Format::Json => {
            let files: Vec<_> = results
                .iter()
                .map(|(p, s)| {
                    serde_json::json!({"file": p, "ok": s.is_some(), "chain": s.as_ref().map(|s| s.dump())})
                })
                .collect();
            out(&format!(
                "{}\n",
                serde_json::to_string_pretty(
                    &serde_json::json!({ "diagnostics": all_diags, "files": files })
                )?
            ))?;
            Ok(code)
        }
        Format::Human => {
            if failed {
                return Err(nfc::Failure::Diagnostics(all_diags).into());
            }
            warnings(&all_diags, fmt);
            let mut text = String::new();
            for (p, s) in &results {
                let Some(s) = s else { continue };
                text.push_str(&format!(
                    "ok: {p}: chain `{}` with {} NF{} and {} link{}\n",
                    s.name,
                    s.nfs.len(),
                    if s.nfs.len() == 1 { "" } else { "s" },
                    s.graph.edge_count(),
                    if s.graph.edge_count() == 1 { "" } else { "s" }
                ));
            }
            out(&text)?;
            Ok(code)
        }
    }
}
