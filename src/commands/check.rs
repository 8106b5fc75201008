//! `nfc check`: validate chain files.

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
    let mut ok = vec![];
    for path in &args.chains {
        match driver::load_chain(path) {
            Ok((spec, diags)) => {
                all_diags.extend(diags);
                ok.push((path.display().to_string(), spec));
            }
            Err(nfc::Failure::Diagnostics(d)) => all_diags.extend(d),
            Err(e) => return Err(e.into()),
        }
    }
    let failed = nfc_core::diag::has_errors(&all_diags);
    if failed {
        return Err(nfc::Failure::Diagnostics(all_diags).into());
    }
    warnings(&all_diags, fmt);
    match fmt {
        Format::Json => {
            let items: Vec<_> = ok
                .iter()
                .map(|(p, s)| serde_json::json!({"file": p, "ok": true, "chain": s.dump()}))
                .collect();
            out(&format!("{}\n", serde_json::to_string_pretty(&items)?))?;
        }
        Format::Human => {
            let mut text = String::new();
            for (p, s) in &ok {
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
        }
    }
    Ok(ExitCode::SUCCESS)
}
