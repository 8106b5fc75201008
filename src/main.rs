//! The `nfc` command-line tool: parses arguments, calls the driver in
//! `nfc::driver`, renders diagnostics, and decides the exit code
//! (0 ok, 1 diagnostics in the input, 2 internal error).

mod commands;
mod render;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = commands::Cli::parse();
    let format = cli.format;
    match commands::run(cli) {
        Ok(code) => code,
        Err(err) => {
            // Writing to a closed pipe (e.g. `nfc analyze ... | head`) is not an error.
            if let Some(io) = err.downcast_ref::<std::io::Error>() {
                if io.kind() == std::io::ErrorKind::BrokenPipe {
                    return ExitCode::SUCCESS;
                }
            }
            match err.downcast::<nfc::Failure>() {
                Ok(nfc::Failure::Diagnostics(diags)) => {
                    render::diagnostics(&diags, format);
                    ExitCode::from(1)
                }
                Ok(other) => {
                    render::internal(&anyhow::Error::new(other), format);
                    ExitCode::from(2)
                }
                Err(err) => {
                    render::internal(&err, format);
                    ExitCode::from(2)
                }
            }
        }
    }
}
