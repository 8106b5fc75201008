//! `flash-rt`: the command-line front end of the on-line runtime.
//!
//! - `flash-rt monitor <deployment>` (root): set up UMEMs, sockets and XDP,
//!   serve NF hosts until SIGINT/SIGTERM, then clean up. If some NF has not
//!   attached within `--attach-timeout-ms` (default 10000; 0 waits forever)
//!   it cleans up and exits 1 naming every such NF.
//! - `flash-rt nf <deployment> <nf-id>` (unprivileged): attach to the
//!   monitor and run one NF until SIGINT/SIGTERM, or until the monitor
//!   goes away (exit 0 with a note: it released everything it held). The
//!   data path runs under NO_NEW_PRIVS and a seccomp filter.
//! - `flash-rt stats <deployment>`: print the monitor's counters as JSON.
//! - `flash-rt check <deployment>`: validate a deployment.
//!
//! Both long-running commands print one `ready` line on stdout once set up,
//! so scripts and tests can wait for it. Exit codes: 0 ok, 1 bad input or a
//! refused/unavailable resource, 2 internal error.

use clap::{Parser, Subcommand};
use flash_rt::deploy::Deployment;
use flash_rt::monitor::protocol::{request, Request, Response};
use flash_rt::monitor::{Monitor, MonitorError, MonitorOptions};
use flash_rt::xdp::FlashError;
use std::io::Write;
use std::os::fd::{AsFd, OwnedFd};
use std::path::PathBuf;

#[derive(Parser)]
#[command(name = "flash-rt", about = "FLASH-style AF_XDP NF chaining runtime")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run the privileged monitor for a deployment.
    Monitor {
        deployment: PathBuf,
        /// Bind AF_XDP sockets with XDP_ZEROCOPY (drivers that support it; not veth).
        #[arg(long)]
        zerocopy: bool,
        /// Every NF must attach within this many milliseconds of the monitor
        /// starting, or the monitor cleans up and exits 1 (0: wait forever).
        #[arg(long, default_value_t = flash_rt::monitor::DEFAULT_ATTACH_TIMEOUT.as_millis() as u64)]
        attach_timeout_ms: u64,
    },
    /// Run one NF of a deployment (unprivileged).
    Nf {
        deployment: PathBuf,
        nf: String,
        /// Writable directory for the loader's private copy of the NF object.
        #[arg(long, default_value = "/tmp")]
        scratch: PathBuf,
    },
    /// Print the monitor's stats as JSON.
    Stats { deployment: PathBuf },
    /// Validate a deployment and print its resolved topology.
    Check { deployment: PathBuf },
}

/// SIGINT/SIGTERM as a readable fd (see [`flash_rt::signals`]).
fn stop_fd() -> anyhow::Result<OwnedFd> {
    Ok(flash_rt::signals::stop_signal_fd()?)
}

fn user_error(e: &FlashError) -> bool {
    !matches!(e, FlashError::Sys { .. } | FlashError::Protocol(_))
}

fn run(cli: Cli) -> Result<(), (i32, String)> {
    let fail = |e: FlashError| (if user_error(&e) { 1 } else { 2 }, e.to_string());
    match cli.cmd {
        Cmd::Check { deployment } => {
            let d = Deployment::load(&deployment).map_err(|e| (1, e.to_string()))?;
            let t = d.topology().map_err(|p| (1, p.join("\n")))?;
            println!(
                "deployment `{}`: {} NFs, {} links, {} UMEM groups, {} AF_XDP sockets",
                d.name,
                d.nfs.len(),
                t.links.len(),
                t.groups.len(),
                t.sockets.len()
            );
            Ok(())
        }
        Cmd::Monitor {
            deployment,
            zerocopy,
            attach_timeout_ms,
        } => {
            let d = Deployment::load(&deployment).map_err(|e| (1, e.to_string()))?;
            let socket = d.monitor.socket.clone();
            let stop = stop_fd().map_err(|e| (2, e.to_string()))?;
            let mut m = Monitor::setup(
                d,
                &MonitorOptions {
                    zerocopy,
                    attach_timeout: (attach_timeout_ms > 0)
                        .then(|| std::time::Duration::from_millis(attach_timeout_ms)),
                    ..Default::default()
                },
            )
            .map_err(fail)?;
            let modes: Vec<String> = m
                .xdp_modes()
                .into_iter()
                .map(|(i, m)| format!("{i}={m}"))
                .collect();
            println!(
                "flash-rt monitor ready: socket {} xdp [{}]",
                m.deployment().monitor.socket.display(),
                modes.join(", ")
            );
            let _ = std::io::stdout().flush();
            let r = m.run(stop.as_fd(), &mut |line| {
                eprintln!("flash-rt monitor: {line}")
            });
            drop(m);
            eprintln!("flash-rt monitor: stopped, XDP detached");
            r.map_err(|e| match e {
                MonitorError::Flash(e) => fail(e),
                e @ MonitorError::NeverAttached { .. } => (
                    1,
                    format!(
                        "{e}: is each one's host running (`flash-rt nf <deployment> <id>`), as that uid, and can it reach the monitor socket {}?",
                        socket.display()
                    ),
                ),
                e => (1, e.to_string()),
            })
        }
        Cmd::Nf {
            deployment,
            nf,
            scratch,
        } => {
            let stop = stop_fd().map_err(|e| (2, e.to_string()))?;
            let ended = flash_rt::host::run_c_nf(
                &deployment,
                &nf,
                &scratch,
                None,
                stop.as_fd(),
                &mut |h| {
                    println!(
                        "flash-rt nf {} ready (pid {})",
                        h.spec().id,
                        std::process::id()
                    );
                    let _ = std::io::stdout().flush();
                },
            )
            .map_err(|e| match e {
                FlashError::Connect { .. } => (
                    1,
                    format!("NF `{nf}`: {e} (is `flash-rt monitor` running?)"),
                ),
                // The loader's message names the NF already.
                FlashError::Nf { .. } => (1, e.to_string()),
                e => {
                    let (code, msg) = fail(e);
                    (code, format!("NF `{nf}`: {msg}"))
                }
            })?;
            if ended == flash_rt::host::Ended::MonitorGone {
                eprintln!(
                    "flash-rt nf {nf}: the monitor went away; sockets and memory released, exiting"
                );
            }
            Ok(())
        }
        Cmd::Stats { deployment } => {
            let d = Deployment::load(&deployment).map_err(|e| (1, e.to_string()))?;
            match request(&d.monitor.socket, &Request::Stats).map_err(fail)? {
                (Response::Stats { stats }, _) => {
                    println!(
                        "{}",
                        serde_json::to_string_pretty(&stats).unwrap_or_default()
                    );
                    Ok(())
                }
                (Response::Refused { reason }, _) => Err((1, reason)),
                (other, _) => Err((2, format!("unexpected answer: {other:?}"))),
            }
        }
    }
}

fn main() {
    let cli = Cli::parse();
    if let Err((code, msg)) = run(cli) {
        eprintln!("flash-rt: error: {msg}");
        std::process::exit(code);
    }
}
