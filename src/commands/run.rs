//! `nfc run`: run a chain over a pcap with the reference executor (offline),
//! writing the packets that leave the chain, per-NF counters and state
//! digests; or, given a flash deployment (the directory `nfc build --target
//! flash` wrote), run it on line: monitor here, NF hosts unprivileged, until
//! Ctrl-C / SIGTERM or `--duration`.

use super::{out, Format};
use nfc::driver::{self, Workspace};
use nfc_core::chain::Traffic;
use nfc_core::Diagnostic;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The chain file, or a flash deployment directory (runs it on line; root).
    pub chain: PathBuf,
    /// On line: stop after this many seconds (default: until Ctrl-C/SIGTERM).
    #[arg(long)]
    pub duration: Option<f64>,
    /// Input pcap (default: the chain's `traffic.pcap`).
    #[arg(long)]
    pub pcap: Option<PathBuf>,
    /// Write the packets that leave the chain here.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Worker threads with software RSS (default 1).
    #[arg(long)]
    pub workers: Option<u32>,
    /// Directory for caches and build outputs.
    #[arg(long, default_value = ".nfc")]
    pub cache_dir: PathBuf,
    /// On line: seconds every NF host gets to attach to the monitor before
    /// the run fails with E0606 (0 waits forever).
    #[arg(long, default_value_t = 10.0)]
    pub attach_timeout: f64,
    /// On line: leave NF hosts to the kernel's scheduler instead of pinning
    /// them over the CPUs nfc may use (a deployment's own `cpus` always apply).
    #[arg(long)]
    pub no_pin: bool,
}

pub fn run(args: Args, fmt: Format) -> anyhow::Result<ExitCode> {
    if nfc::online::deployment_file(&args.chain).is_some() || args.chain.is_dir() {
        return run_online(&args, fmt);
    }
    let (chain, _warnings) = driver::load_chain(&args.chain)?;
    let input = match (&args.pcap, &chain.traffic) {
        (Some(p), _) => p.clone(),
        (None, Traffic::Pcap { path }) => path.clone(),
        (None, Traffic::Synthetic(_)) => {
            return Err(nfc::Failure::diag(
                Diagnostic::error("E0202", "no input pcap: the chain's traffic is synthetic")
                    .with_hint(format!(
                "generate one: nfc trace gen --chain {} -o trace.pcap, then pass --pcap trace.pcap",
                args.chain.display()
            )),
            )
            .into())
        }
    };
    if !input.is_file() {
        return Err(nfc::Failure::diag(Diagnostic::error(
            "E0200",
            format!("pcap {} does not exist", input.display()),
        ))
        .into());
    }
    let ws = Workspace::new(&args.cache_dir);
    let report = driver::run_pcap(&chain, &ws, &input, args.out.as_deref(), None, args.workers)?;
    match fmt {
        Format::Json => out(&format!("{}\n", serde_json::to_string_pretty(&report)?))?,
        Format::Human => {
            let mut t = format!(
                "{} packets in, {} out, {} dropped ({} worker{})\n",
                report.packets,
                report.exited,
                report.dropped,
                report.workers,
                if report.workers == 1 { "" } else { "s" }
            );
            for nf in &report.nfs {
                t.push_str(&format!(
                    "  {:<16} rx {:>9}  drop {:>9}  out {:?}  state {}\n",
                    nf.id,
                    nf.rx,
                    nf.drops,
                    nf.out,
                    &nf.state_digest[..16.min(nf.state_digest.len())]
                ));
            }
            for (exit, n) in &report.exits {
                t.push_str(&format!("  exit {exit}: {n}\n"));
            }
            if let Some(o) = &args.out {
                t.push_str(&format!("wrote {}\n", o.display()));
            }
            out(&t)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Run a flash deployment until a signal or `--duration`, then print the
/// monitor's final counters.
fn run_online(args: &Args, fmt: Format) -> anyhow::Result<ExitCode> {
    use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};
    // Block SIGINT/SIGTERM before any thread exists; a watcher thread turns
    // the signal (or the deadline) into one readable eventfd for the monitor.
    let signals = flash_rt::signals::stop_signal_fd()?;
    // SAFETY: plain eventfd() call; the fd is owned below.
    let stop = unsafe { libc::eventfd(0, libc::EFD_CLOEXEC) };
    anyhow::ensure!(stop >= 0, "eventfd: {}", std::io::Error::last_os_error());
    // SAFETY: fresh fd.
    let stop = std::sync::Arc::new(unsafe { OwnedFd::from_raw_fd(stop) });
    let timeout_ms = match args.duration {
        Some(s) if !(s.is_finite() && s >= 0.0) => {
            return Err(nfc::Failure::diag(
                Diagnostic::error(
                    "E0605",
                    format!("--duration {s} is not a number of seconds"),
                )
                .with_hint("give a non-negative number, e.g. --duration 30"),
            )
            .into())
        }
        Some(s) => (s * 1000.0).min(i32::MAX as f64) as i32,
        None => -1,
    };
    if !(args.attach_timeout.is_finite() && args.attach_timeout >= 0.0) {
        return Err(nfc::Failure::diag(
            Diagnostic::error(
                "E0605",
                format!(
                    "--attach-timeout {} is not a number of seconds",
                    args.attach_timeout
                ),
            )
            .with_hint("give a non-negative number, e.g. --attach-timeout 30 (0 waits forever)"),
        )
        .into());
    }
    let watcher = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut pfd = libc::pollfd {
                fd: signals.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid pollfd; EINTR just ends the wait early.
            unsafe { libc::poll(&mut pfd, 1, timeout_ms) };
            let one = 1u64;
            // SAFETY: writing 8 bytes to our eventfd.
            unsafe { libc::write(stop.as_raw_fd(), (&one as *const u64).cast(), 8) };
        })
    };
    let exe = std::env::current_exe()?;
    let opts = nfc::online::OnlineOptions {
        pin: !args.no_pin,
        attach_timeout: (args.attach_timeout > 0.0)
            .then(|| std::time::Duration::from_secs_f64(args.attach_timeout)),
        ..nfc::online::OnlineOptions::new(exe)
    };
    let report = nfc::online::run_deployment(&args.chain, &opts, stop.as_fd(), &mut |line| {
        eprintln!("nfc run: {line}")
    });
    // Wake the watcher if the run ended on its own (an error before serving).
    let one = 1u64;
    // SAFETY: writing 8 bytes to our eventfd; the watcher ignores it.
    unsafe { libc::write(stop.as_raw_fd(), (&one as *const u64).cast(), 8) };
    // SAFETY: a signal to ourselves ends the watcher's poll when no real
    // signal came; it is blocked and consumed through the signalfd.
    unsafe { libc::kill(libc::getpid(), libc::SIGTERM) };
    let _ = watcher.join();
    let report = report?;
    match fmt {
        Format::Json => out(&format!("{}\n", serde_json::to_string_pretty(&report)?))?,
        Format::Human => {
            let mut t = format!("deployment `{}` stopped\n", report.deployment);
            for (id, how) in &report.hosts {
                t.push_str(&format!("  NF {id:<16} host {how}\n"));
            }
            t.push_str(&format!(
                "{}\n",
                serde_json::to_string_pretty(&report.stats)?
            ));
            out(&t)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
