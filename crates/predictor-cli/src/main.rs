//! `nfc-predict`: the predictor's command line; `nfc predict …` runs it.
//! It is a package of its own so that only it links libtorch: every other
//! `nfc` command starts without loading libtorch_cpu (≈ 400 MB mapped, up to
//! 1–2 s on a loaded machine). torch-sys's C++ wrapper comes with any binary
//! that links nfc-predictor, so `nfc` itself must not depend on it.

mod insight;
mod predict;

use clap::Parser;
use std::process::ExitCode;

/// Output format, as `nfc --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Text for people.
    Human,
    /// JSON for tools, on stdout.
    Json,
}

/// Predict throughput and latency from NF counters (train, eval, explain), and SmartNIC compute (insight).
#[derive(Debug, Parser)]
#[command(name = "nfc predict", bin_name = "nfc predict", version)]
struct Cli {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human, global = true)]
    format: Format,
    #[command(flatten)]
    args: predict::Args,
}

/// Write a result to stdout.
pub fn out(text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    let mut o = std::io::stdout().lock();
    o.write_all(text.as_bytes())?;
    o.flush()?;
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match predict::run(cli.args, cli.format) {
        Ok(code) => code,
        Err(err) => {
            if let Some(io) = err.downcast_ref::<std::io::Error>() {
                if io.kind() == std::io::ErrorKind::BrokenPipe {
                    return ExitCode::SUCCESS;
                }
            }
            eprintln!("internal error: {err:#}");
            ExitCode::from(2)
        }
    }
}
