//! `nfc explain-code E0401`: the long explanation of a diagnostic code from
//! the registry ([`nfc::codes`]), like rustc's `--explain`.

use super::{out, Format};
use nfc_core::Diagnostic;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The code (e.g. E0401); `--list` prints every code instead.
    #[arg(required_unless_present = "list")]
    pub code: Option<String>,
    /// List every code nfc emits with its title.
    #[arg(long)]
    pub list: bool,
}

pub fn run(args: Args, fmt: Format) -> anyhow::Result<ExitCode> {
    if args.list {
        match fmt {
            Format::Json => out(&format!(
                "{}\n",
                serde_json::to_string_pretty(nfc::codes::CODES)?
            ))?,
            Format::Human => out(&nfc::codes::CODES
                .iter()
                .map(|c| format!("{}  {}\n", c.code, c.title))
                .collect::<String>())?,
        }
        return Ok(ExitCode::SUCCESS);
    }
    let code = args.code.unwrap_or_default();
    let Some(doc) = nfc::codes::lookup(&code) else {
        return Err(nfc::Failure::diag(
            Diagnostic::error(
                "E0507",
                format!("`{code}` is not a diagnostic code nfc emits"),
            )
            .with_hint("`nfc explain-code --list` prints every code"),
        )
        .into());
    };
    match fmt {
        Format::Json => out(&format!("{}\n", serde_json::to_string_pretty(doc)?))?,
        Format::Human => out(&format!(
            "{}: {}\n\n{}\n",
            doc.code, doc.title, doc.explanation
        ))?,
    }
    Ok(ExitCode::SUCCESS)
}
