//! `nfc nf-host`: host one NF of a flash deployment, attached to the
//! monitor `nfc run <deployment>` runs. `nfc run` launches one per NF as
//! the deployment's unprivileged user; an operator restarts an NF whose
//! host died with the same command, as that user:
//!
//! ```sh
//! sudo -u '#65534' nfc nf-host dep/deployment.json f1
//! ```
//!
//! The host runs its data path under NO_NEW_PRIVS and a seccomp filter
//! (`flash_rt::host::sandbox`), and exits 0 by itself when the monitor goes
//! away (it released everything it held). Same as `flash-rt nf`.

use flash_rt::host::Ended;
use flash_rt::xdp::FlashError;
use std::io::Write;
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
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
    let ended = flash_rt::host::run_c_nf(
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
    .map_err(|e| nfc::Failure::diag(diagnose(&args.deployment, &args.nf, e)))?;
    if ended == Ended::MonitorGone {
        eprintln!(
            "NF `{}`: the monitor went away (`nfc run` stopped); sockets and memory released, exiting",
            args.nf
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// E0607 for a host that could not start: the message names the NF once,
/// the hint says what to do about this particular cause.
fn diagnose(dep: &Path, nf: &str, e: FlashError) -> nfc_core::Diagnostic {
    // SAFETY: getuid never fails.
    let uid = unsafe { libc::getuid() };
    let restart = format!("nfc nf-host {} {nf}", dep.display());
    let hint = match &e {
        FlashError::Connect { path, source } => match source.raw_os_error() {
            Some(libc::ENOENT) => format!(
                "no monitor serves {}: start the deployment with `nfc run {}` (as root); `nfc nf-host` only restarts an NF of a running deployment",
                path.display(),
                dep.parent().unwrap_or(dep).display()
            ),
            Some(libc::ECONNREFUSED) => format!(
                "{} is left over from a monitor that is no longer running: start `nfc run {}` again",
                path.display(),
                dep.parent().unwrap_or(dep).display()
            ),
            Some(libc::EACCES | libc::EPERM) => format!(
                "uid {uid} may not reach {}: every directory above the socket needs search (x) permission for the NF's user",
                path.display()
            ),
            _ => format!("the monitor socket {} does not accept connections", path.display()),
        },
        FlashError::Refused(reason) if reason.contains("already attached") => {
            "one host per NF: stop the running host first (or wait for it to exit), then start this one".to_string()
        }
        FlashError::Refused(reason) if reason.contains("must run as") => format!(
            "this host runs as uid {uid}; run it as the uid the deployment gives this NF, e.g. `sudo -u '#<uid>' {restart}`"
        ),
        FlashError::Refused(_) => "the monitor's reason says what it expects".to_string(),
        FlashError::Nf { .. } => {
            "the NF's shared object failed to load or its nf_init rejected the configuration: fix the NF or its config in the chain and rebuild".to_string()
        }
        FlashError::Deploy(_) => {
            "re-emit the deployment with `nfc build <chain.yaml> --target flash -o DIR`".to_string()
        }
        FlashError::UnknownNf(_) => {
            "the NF ids are the `id`s under `nfs` in deployment.json".to_string()
        }
        FlashError::Protocol(_) => {
            "this host and the running monitor disagree: was the deployment re-emitted while `nfc run` ran? restart `nfc run`".to_string()
        }
        FlashError::Sandbox(_) => {
            "the kernel refused the NF host's seccomp sandbox (it needs CONFIG_SECCOMP_FILTER)".to_string()
        }
        FlashError::Sys { .. } | FlashError::NoInterface { .. } | FlashError::Xdp { .. } => {
            "a system call of the NF host failed; the message says which".to_string()
        }
    };
    let message = match &e {
        // These name the NF already.
        FlashError::Nf { .. } | FlashError::UnknownNf(_) => e.to_string(),
        _ => format!("NF `{nf}`: {e}"),
    };
    nfc_core::Diagnostic::error("E0607", message).with_hint(hint)
}
