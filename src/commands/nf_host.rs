//! `nfc nf-host` (hidden): host one NF of a flash deployment, attached to the
//! monitor `nfc run <deployment>` started; `nfc run` launches one per NF as
//! the deployment's unprivileged user. Same as `flash-rt nf`.

use std::io::Write;
use std::os::fd::AsFd;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The deployment file (deployment.json).
    pub deployment: PathBuf,
    /// The NF id to host.
    pub nf: String,
    /// Writable directory for the loader's private copy of the NF object.
    #[arg(long, default_value = "/tmp")]
    pub scratch: PathBuf,
    /// CPU of every NF in deployment order, chosen by `nfc run`; replaces
    /// the deployment's own pinning.
    #[arg(long, value_delimiter = ',')]
    pub pinning: Option<Vec<u32>>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let stop = flash_rt::signals::stop_signal_fd()?;
    flash_rt::host::run_c_nf(
        &args.deployment,
        &args.nf,
        &args.scratch,
        args.pinning.as_deref(),
        stop.as_fd(),
        &mut |h| {
            println!("NF `{}` attached (pid {})", h.spec().id, std::process::id());
            let _ = std::io::stdout().flush();
        },
    )
    // Everything that stops a host (monitor unreachable, refused, the NF
    // object failing to load) comes from the deployment or its machine.
    .map_err(|e| {
        nfc::Failure::diag(
            nfc_core::Diagnostic::error("E0607", format!("NF `{}`: {e}", args.nf)).with_hint(
                "the host must run as the deployment's uid for this NF, reach the monitor's socket, and read the NF object",
            ),
        )
    })?;
    Ok(ExitCode::SUCCESS)
}
