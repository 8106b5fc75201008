//! `nfc predict`: runs `nfc-predict` (crates/predictor-cli), built and
//! installed beside `nfc`, which alone links libtorch. Arguments pass through
//! unchanged; `nfc predict --help` is its help.

use super::Format;
use std::ffi::OsString;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
#[command(disable_help_flag = true)]
pub struct Args {
    /// train | eval | explain | insight and their arguments (`nfc predict --help`).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub args: Vec<OsString>,
}

/// The `nfc-predict` binary beside `nfc` (the only one linking libtorch).
pub fn predictor_exe() -> anyhow::Result<std::path::PathBuf> {
    let exe = std::env::current_exe()?.with_file_name("nfc-predict");
    if !exe.is_file() {
        anyhow::bail!(
            "{} not found: `nfc predict` runs the nfc-predict binary installed beside nfc (`cargo build --workspace` builds it; `cargo install --path crates/predictor-cli` installs it)",
            exe.display()
        );
    }
    Ok(exe)
}

pub fn run(args: Args, fmt: Format) -> anyhow::Result<ExitCode> {
    use std::os::unix::process::CommandExt;
    let exe = predictor_exe()?;
    let mut cmd = std::process::Command::new(&exe);
    // `nfc --format json predict …`: pass the global format on, unless the
    // predict arguments name one themselves.
    let names_format = args
        .args
        .iter()
        .any(|a| a.to_str().is_some_and(|s| s.starts_with("--format")));
    if fmt == Format::Json && !names_format {
        cmd.args(["--format", "json"]);
    }
    let err = cmd.args(&args.args).exec();
    Err(anyhow::Error::new(err).context(format!("running {}", exe.display())))
}
