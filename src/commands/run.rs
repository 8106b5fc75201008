//! `nfc run`: run a chain over a pcap with the reference executor (offline),
//! writing the packets that leave the chain, per-NF counters and state
//! digests; or, given a flash deployment (the directory `nfc build --target
//! flash` wrote), run it on line: monitor here, NF hosts unprivileged, until
//! Ctrl-C / SIGTERM or `--duration`.

use super::{out, Format};
use nfc::driver::{self, Workspace};
use nfc_core::chain::Traffic;
use nfc_core::plan::Sharing;
use nfc_core::{Diagnostic, Plan};
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
    /// Worker threads with software RSS (default: the plan's cores with `--plan`, else 1). With
    /// more than one, each NF runs shared or shared-nothing as the placer's plan for this many
    /// cores says (proven first, see `--plan-proof`).
    #[arg(long)]
    pub workers: Option<u32>,
    /// Run this saved plan (`nfc build --emit plan` writes plan.json) instead of placing the chain.
    #[arg(long, value_name = "PLAN_JSON", conflicts_with = "sharing")]
    pub plan: Option<PathBuf>,
    /// A baseline instead of the placer's plan: every NF shared, or every NF shared-nothing
    /// (RSS on the 5-tuple).
    #[arg(long, value_enum)]
    pub sharing: Option<SharingArg>,
    #[command(flatten)]
    pub proof: super::proof::ProofArgs,
    /// Directory for caches and build outputs.
    #[arg(long, default_value = ".nfc")]
    pub cache_dir: PathBuf,
    /// On line: seconds every NF host gets to attach to the monitor before
    /// the run fails with E0606 (0 waits forever).
    #[arg(long, default_value_t = 10.0)]
    pub attach_timeout: f64,
    /// On line: how NF hosts are placed on the CPUs nfc may use when the
    /// deployment pins none itself (its own `cpus` always apply): `auto`
    /// pins one CPU per NF host when there are more CPUs than hosts (one
    /// left for the kernel's receive path and the traffic) and otherwise
    /// leaves them to the scheduler; `always` also pins contiguous runs of
    /// the chain per CPU when NFs outnumber CPUs; `never` leaves every host
    /// to the scheduler. A host that dies is reaped; restart its NF with
    /// `nfc nf-host <deployment.json> <nf>` as the NF's user.
    #[arg(long, value_enum, default_value_t = PinArg::Auto)]
    pub pin: PinArg,
    /// On line: the same as `--pin never`.
    #[arg(long, conflicts_with = "pin")]
    pub no_pin: bool,
}

/// `--pin`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PinArg {
    /// One CPU per NF host when CPUs outnumber hosts, else the scheduler.
    Auto,
    /// Always pin (contiguous chain runs per CPU when NFs outnumber CPUs).
    Always,
    /// Never pin.
    Never,
}

/// Baseline layouts for `--sharing`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SharingArg {
    /// Every NF on one state instance.
    AllShared,
    /// Every NF one state instance per worker.
    AllSharedNothing,
}

/// A plan where every NF has `sharing`, RSS on the 5-tuple with the default key and RETA.
fn baseline(chain: &nfc_core::chain::ChainSpec, workers: u32, sharing: Sharing) -> Plan {
    Plan {
        cores: workers,
        rss: nfc_core::plan::Rss {
            fields: nfc_core::facts::Field::FIVE_TUPLE.to_vec(),
            symmetric: false,
            key40: vec![],
            key52: vec![],
            reta: vec![],
        },
        nfs: chain
            .nfs
            .iter()
            .map(|n| nfc_core::plan::NfPlacement {
                nf: n.id.0.clone(),
                sharing,
                cost: 0.0,
                reason: "baseline (--sharing)".into(),
            })
            .collect(),
        total_cost: 0.0,
        candidates: vec![],
        rationale: vec![],
        smartnic: None,
    }
}

/// Check a saved plan against the chain and the worker count: every NF it
/// names is in the chain, its cores fit, and its RSS unit can be programmed.
fn check_plan(
    plan: &Plan,
    path: &std::path::Path,
    chain: &nfc_core::chain::ChainSpec,
    workers: Option<u32>,
) -> Result<(), nfc::Failure> {
    let file = path.display().to_string();
    let bad = |msg: String, hint: &str| {
        nfc::Failure::diag(
            Diagnostic::error("E0203", msg)
                .with_span(nfc_core::Span::file_only(file.clone()))
                .with_hint(hint.to_string()),
        )
    };
    if plan.cores == 0 || plan.cores > 1024 {
        return Err(bad(
            format!("{file}: the plan is for {} cores", plan.cores),
            "a plan needs 1..=1024 cores",
        ));
    }
    if let Some(w) = workers {
        if w != plan.cores {
            return Err(bad(
                format!("{file}: the plan is for {} cores, but --workers is {w}", plan.cores),
                "drop --workers (the plan's cores are used), or place the chain for that many cores",
            ));
        }
    }
    for p in &plan.nfs {
        if chain.nf(&p.nf).is_none() {
            return Err(bad(
                format!(
                    "{file}: the plan places NF `{}`, which is not in the chain",
                    p.nf
                ),
                "use the plan `nfc build --emit plan` wrote for this chain",
            ));
        }
    }
    let opts = flash_rt::offline::ExecOptions::from_plan(plan);
    if opts.workers > 1 {
        let key = opts
            .rss_key
            .clone()
            .unwrap_or_else(|| flash_rt::rss::MICROSOFT_KEY.to_vec());
        let reta = opts.reta.clone().unwrap_or_else(|| {
            flash_rt::rss::default_reta(opts.workers, flash_rt::rss::DEFAULT_RETA_SIZE)
        });
        if let Err(e) = flash_rt::rss::SoftRss::new(&opts.rss_fields, &key, reta, opts.workers) {
            return Err(bad(
                format!("{file}: the plan's RSS configuration is unusable: {e}"),
                "use the plan `nfc build --emit plan` wrote for this chain",
            ));
        }
    }
    Ok(())
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
    if args.workers == Some(0) {
        return Err(nfc::Failure::diag(
            Diagnostic::error("E0204", "--workers 0: a run needs at least one worker")
                .with_hint("pass --workers 1 or more"),
        )
        .into());
    }
    let mut notes = vec![];
    let plan = if let Some(path) = &args.plan {
        let plan = super::proof::read_plan(path)?;
        check_plan(&plan, path, &chain, args.workers)?;
        notes.push(format!("plan {}", path.display()));
        plan
    } else {
        let workers = args.workers.unwrap_or(1);
        match args.sharing {
            Some(SharingArg::AllShared) => baseline(&chain, workers, Sharing::Shared),
            Some(SharingArg::AllSharedNothing) => baseline(&chain, workers, Sharing::SharedNothing),
            None if workers == 1 => baseline(&chain, 1, Sharing::Shared),
            None => {
                // The placer's plan for this many cores, proven.
                let mut placed = chain.clone();
                placed.resources.cores = workers;
                let aopts = driver::AnalyzeOptions {
                    cache_dir: Some(args.cache_dir.join("facts")),
                    ..driver::AnalyzeOptions::default()
                };
                let forced = args.proof.facts()?;
                let (_, plan, diags, proof) = driver::analyze_place_prove(
                    &placed,
                    &aopts,
                    &ws,
                    &args.proof.options(),
                    &forced,
                )?;
                super::warnings(&diags, fmt);
                notes.push(proof.line());
                plan
            }
        }
    };
    let report = driver::run_pcap(
        &chain,
        &ws,
        &input,
        args.out.as_deref(),
        Some(&plan),
        Some(plan.cores),
    )?;
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
            for n in &notes {
                t.push_str(&format!("{n}\n"));
            }
            if report.workers > 1 {
                let fields: Vec<&str> = plan.rss.fields.iter().map(|f| f.name()).collect();
                t.push_str(&format!("RSS on {}\n", fields.join(", ")));
            }
            for nf in &report.nfs {
                t.push_str(&format!(
                    "  {:<16} {:<14} rx {:>9}  drop {:>9}  out {:?}  state {}\n",
                    nf.id,
                    sharing_name(nf.sharing),
                    nf.rx,
                    nf.drops,
                    nf.out,
                    &nf.state_digest[..16.min(nf.state_digest.len())]
                ));
            }
            for (w, n) in report.worker_packets.iter().enumerate() {
                let share = if report.packets > 0 {
                    100.0 * *n as f64 / report.packets as f64
                } else {
                    0.0
                };
                t.push_str(&format!("  worker {w}: {n} packets ({share:.1}%)\n"));
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
        placement: match (args.no_pin, args.pin) {
            (true, _) | (_, PinArg::Never) => flash_rt::deploy::Placement::Never,
            (_, PinArg::Always) => flash_rt::deploy::Placement::Always,
            (_, PinArg::Auto) => flash_rt::deploy::Placement::Auto,
        },
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

fn sharing_name(s: Sharing) -> &'static str {
    match s {
        Sharing::Shared => "shared",
        Sharing::SharedNothing => "shared-nothing",
        Sharing::Stateless => "stateless",
    }
}
