//! `nfc profile <deployment dir> --stimulus load|resource|both -o data.csv`:
//! run the deployment in namespaces of its own under load (AF_XDP
//! generator, regular and random rates) and/or resource stimuli
//! (stress-ng, cgroup v1 CPU quotas) and write nfc's counter CSV for the
//! predictor, plus a JSON report beside it (`<out>.json`: phases, loss,
//! what was created and removed). Root. Ctrl-C stops early and cleans up.

use super::Format;
use nfc::profile::{ProfileOptions, Stimulus};
use nfc_core::Diagnostic;
use std::os::fd::AsRawFd;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The deployment (the directory `nfc build --target flash` wrote).
    pub deployment: PathBuf,
    /// Which stimuli drive the chain.
    #[arg(long, value_enum)]
    pub stimulus: StimulusArg,
    /// The dataset (nfc's counter CSV).
    #[arg(short, long)]
    pub output: PathBuf,
    /// Seconds of stimulus after a 3 s calibration (at most 600).
    #[arg(long, default_value_t = 30.0)]
    pub duration: f64,
    /// Seconds per stimulus phase.
    #[arg(long, default_value_t = 5.0)]
    pub phase: f64,
    /// Seconds per sample row (0.1 to 10).
    #[arg(long, default_value_t = 0.5)]
    pub period: f64,
    /// Seed of the stimulus schedule.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Frame length in bytes (70 to 1500).
    #[arg(long, default_value_t = 128)]
    pub frame_len: usize,
    /// Suffix of the namespace, cgroup and directory names (default: from the pid).
    #[arg(long, hide = true)]
    pub tag: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum StimulusArg {
    /// The generator at regular and random rates.
    Load,
    /// stress-ng stressors and cgroup CPU quotas at a fixed rate.
    Resource,
    /// Both at once.
    Both,
}

fn bad(msg: String, hint: &str) -> anyhow::Error {
    nfc::Failure::diag(Diagnostic::error("E0612", msg).with_hint(hint)).into()
}

pub fn run(args: Args, fmt: Format) -> anyhow::Result<ExitCode> {
    if !(args.duration.is_finite() && args.duration > 0.0 && args.duration <= 600.0) {
        return Err(bad(
            format!(
                "--duration {} is not between 0 and 600 seconds",
                args.duration
            ),
            "profiles are bounded: e.g. --duration 30",
        ));
    }
    if !(args.period.is_finite() && (0.1..=10.0).contains(&args.period)) {
        return Err(bad(
            format!("--period {} is not between 0.1 and 10 seconds", args.period),
            "e.g. --period 0.5",
        ));
    }
    if !(args.phase.is_finite()
        && args.phase >= args.period
        && args.phase <= args.duration.max(args.period))
    {
        return Err(bad(
            format!(
                "--phase {} is not between --period and --duration",
                args.phase
            ),
            "e.g. --phase 5",
        ));
    }
    if !(70..=1500).contains(&args.frame_len) {
        return Err(bad(
            format!("--frame-len {} is not between 70 and 1500", args.frame_len),
            "e.g. --frame-len 128",
        ));
    }
    let tag = args
        .tag
        .clone()
        .unwrap_or_else(|| format!("{}", std::process::id() % 1_000_000));
    if tag.is_empty() || tag.len() > 8 || !tag.chars().all(|c| c.is_ascii_alphanumeric()) {
        return Err(bad(
            format!("--tag `{tag}` is not 1 to 8 letters or digits"),
            "interface and namespace names are short",
        ));
    }
    let signals = flash_rt::signals::stop_signal_fd()?;
    let stop = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicBool::new(false));
    let watcher = {
        let (stop, done) = (stop.clone(), done.clone());
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                let mut pfd = libc::pollfd {
                    fd: signals.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                };
                // SAFETY: one valid pollfd.
                if unsafe { libc::poll(&mut pfd, 1, 100) } > 0 {
                    stop.store(true, Ordering::Relaxed);
                    return;
                }
            }
        })
    };
    let opts = ProfileOptions {
        stimulus: match args.stimulus {
            StimulusArg::Load => Stimulus::Load,
            StimulusArg::Resource => Stimulus::Resource,
            StimulusArg::Both => Stimulus::Both,
        },
        duration: args.duration,
        phase: args.phase,
        period: args.period,
        seed: args.seed,
        nfc_exe: std::env::current_exe()?,
        tag,
        frame_len: args.frame_len,
    };
    let mut file = std::io::BufWriter::new(
        std::fs::File::create(&args.output)
            .map_err(|e| nfc::Failure::io(format!("creating {}", args.output.display()), e))?,
    );
    let report = nfc::profile::profile(&args.deployment, &opts, &mut file, &stop, &mut |l| {
        eprintln!("nfc profile: {l}")
    });
    done.store(true, Ordering::Relaxed);
    let _ = watcher.join();
    drop(file);
    let report = match report {
        Ok(r) => r,
        Err(e) => {
            let _ = std::fs::remove_file(&args.output);
            return Err(e.into());
        }
    };
    let json = serde_json::to_string_pretty(&report)?;
    let side = PathBuf::from(format!("{}.json", args.output.display()));
    std::fs::write(&side, &json)
        .map_err(|e| nfc::Failure::io(format!("writing {}", side.display()), e))?;
    eprintln!(
        "nfc profile: {} rows to {} ({}); everything created was removed",
        report.rows,
        args.output.display(),
        if report.stopped_early {
            "stopped early"
        } else {
            "complete"
        }
    );
    if fmt == Format::Json {
        super::out(&format!("{json}\n"))?;
    }
    Ok(ExitCode::SUCCESS)
}
