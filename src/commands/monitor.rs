//! `nfc monitor <deployment dir>`: sample the counters of a running flash
//! chain's NF hosts (perf_event_open software and, where the CPU has a PMU,
//! hardware events; scheduler run delay) and the chain's packet rates every
//! `--period`, as nfc's counter CSV (`-o FILE`, or stdout) or as a
//! refreshing table (`--live`). Counters this machine cannot give are named
//! on stderr and get no column. See docs/predictor.md.

use super::Format;
use nfc::monitor::{cell, Sampler};
use nfc_core::Diagnostic;
use std::io::Write;
use std::os::fd::AsRawFd;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The running deployment (the directory `nfc build --target flash` wrote).
    pub deployment: PathBuf,
    /// Seconds between samples (0.1 to 10).
    #[arg(long, default_value_t = 0.5)]
    pub period: f64,
    /// Write the samples as CSV here (default: stdout).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Stop after this many seconds (default: until Ctrl-C/SIGTERM).
    #[arg(long)]
    pub duration: Option<f64>,
    /// Stop after this many samples.
    #[arg(long)]
    pub samples: Option<u64>,
    /// Read scheduler statistics only (run delay), no perf_event counters.
    #[arg(long)]
    pub no_perf: bool,
    /// Run at the normal scheduling priority instead of SCHED_IDLE. By default the monitor is
    /// SCHED_IDLE, so its wake-ups never preempt an NF host (a busy-polling host that sees
    /// another runnable task on its CPU backs off into its slower batch mode).
    #[arg(long)]
    pub normal_priority: bool,
    /// Show a refreshing table on stdout instead of CSV (a CSV still goes to `-o`).
    #[arg(long)]
    pub live: bool,
    /// A model directory from `nfc predict train` (throughput or latency; give both with two
    /// `--model`): its prediction for every sample is shown next to the measurement (stderr, or
    /// the live table). Runs `nfc-predict`, installed beside nfc, which links libtorch.
    #[arg(long)]
    pub model: Vec<PathBuf>,
    /// Flag a sample whose predicted throughput is below this many packets per second.
    #[arg(long, value_name = "PPS")]
    pub sla_throughput: Option<f64>,
    /// Flag a sample whose predicted latency is above this (the model's unit, µs for `nfc profile` data).
    #[arg(long, value_name = "LATENCY")]
    pub sla_latency: Option<f64>,
}

/// One `nfc-predict stream` child: a header, then a row in, a prediction out.
struct Live {
    target: String,
    kind: String,
    child: std::process::Child,
    input: std::process::ChildStdin,
    output: std::io::Lines<std::io::BufReader<std::process::ChildStdout>>,
}

impl Live {
    fn start(model: &std::path::Path, header: &[String]) -> anyhow::Result<Live> {
        use std::io::BufRead;
        let exe = std::env::current_exe()?.with_file_name("nfc-predict");
        if !exe.is_file() {
            anyhow::bail!("{} not found: `nfc monitor --model` runs the nfc-predict binary installed beside nfc", exe.display());
        }
        let mut child = std::process::Command::new(&exe)
            .args(["stream", "--model"])
            .arg(model)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()?;
        let mut input = child.stdin.take().expect("piped");
        let mut output = std::io::BufReader::new(child.stdout.take().expect("piped")).lines();
        writeln!(input, "{}", header.join(","))?;
        input.flush()?;
        let first = output.next().transpose()?.unwrap_or_default();
        let mut it = first.split_whitespace();
        let (target, kind) = (
            it.next().unwrap_or("").to_string(),
            it.next().unwrap_or("").to_string(),
        );
        if target.is_empty() {
            let _ = child.wait();
            return Err(nfc::Failure::diag(
                Diagnostic::error("E0614", format!("{} cannot predict from this chain's counters", model.display()))
                    .with_hint("train the model on `nfc profile` data of this chain (its features are `<nf>_<counter>` columns nfc monitor writes)"),
            )
            .into());
        }
        Ok(Live {
            target,
            kind,
            child,
            input,
            output,
        })
    }

    fn predict(&mut self, cells: &[String]) -> f64 {
        if writeln!(self.input, "{}", cells.join(",")).is_err() || self.input.flush().is_err() {
            return f64::NAN;
        }
        self.output
            .next()
            .and_then(|l| l.ok())
            .and_then(|l| l.trim().parse().ok())
            .unwrap_or(f64::NAN)
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn bad(msg: String, hint: &str) -> anyhow::Error {
    nfc::Failure::diag(Diagnostic::error("E0612", msg).with_hint(hint)).into()
}

pub fn run(args: Args, fmt: Format) -> anyhow::Result<ExitCode> {
    if !(args.period.is_finite() && (0.1..=10.0).contains(&args.period)) {
        return Err(bad(
            format!("--period {} is not between 0.1 and 10 seconds", args.period),
            "sample every 100 ms to 1 s as the predictor expects, e.g. --period 0.5",
        ));
    }
    if let Some(d) = args.duration {
        if !(d.is_finite() && d > 0.0) {
            return Err(bad(
                format!("--duration {d} is not a positive number of seconds"),
                "e.g. --duration 30",
            ));
        }
    }
    let signals = flash_rt::signals::stop_signal_fd()?;
    if !args.normal_priority {
        let param = libc::sched_param { sched_priority: 0 };
        // SAFETY: valid param for this process.
        if unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) } != 0 {
            eprintln!(
                "nfc monitor: cannot run at SCHED_IDLE ({}); sampling at normal priority",
                std::io::Error::last_os_error()
            );
        }
    }
    let mut sampler = Sampler::attach_with(&args.deployment, !args.no_perf)?;
    for (name, why) in sampler.unsupported() {
        eprintln!("nfc monitor: counter `{name}` not supported: {why}");
    }
    eprintln!(
        "nfc monitor: sampling {} every {} s: {}",
        sampler
            .hosts()
            .iter()
            .map(|(nf, pid)| format!("{nf} (pid {pid})"))
            .collect::<Vec<_>>()
            .join(", "),
        args.period,
        sampler.supported().join(", ")
    );
    let mut header = vec!["input_rate".to_string(), "output_rate".to_string()];
    header.extend(sampler.columns());
    let mut live: Vec<Live> = args
        .model
        .iter()
        .map(|m| Live::start(m, &header))
        .collect::<anyhow::Result<_>>()?;
    let mut csv: Option<Box<dyn Write>> = match (&args.output, args.live) {
        (Some(p), _) => Some(Box::new(std::io::BufWriter::new(
            std::fs::File::create(p)
                .map_err(|e| nfc::Failure::io(format!("creating {}", p.display()), e))?,
        ))),
        (None, false) => Some(Box::new(std::io::stdout())),
        (None, true) => None,
    };
    if let Some(w) = csv.as_mut() {
        writeln!(w, "{}", header.join(","))?;
        w.flush()?;
    }
    let start = Instant::now();
    let period = Duration::from_secs_f64(args.period);
    let mut next = start + period;
    let mut n = 0u64;
    let mut rows = vec![];
    loop {
        // Wait for the next tick or a stop signal.
        let wait = next.saturating_duration_since(Instant::now());
        let mut pfd = libc::pollfd {
            fd: signals.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        let r = unsafe { libc::poll(&mut pfd, 1, wait.as_millis() as i32) };
        if r > 0 {
            break;
        }
        next += period;
        let row = match sampler.sample() {
            Ok(r) => r,
            Err(e) if n > 0 => {
                // The chain stopped under us: what was sampled stands.
                eprintln!("nfc monitor: stopped: {e}");
                break;
            }
            Err(e) => return Err(e.into()),
        };
        n += 1;
        let mut cells = vec![cell(row.input_rate), cell(row.output_rate)];
        cells.extend(row.counters.iter().map(|v| cell(*v)));
        if let Some(w) = csv.as_mut() {
            writeln!(w, "{}", cells.join(","))?;
            w.flush()?;
        }
        let mut verdicts = vec![];
        for m in live.iter_mut() {
            let p = m.predict(&cells);
            let (measured, degrading) = match m.target.as_str() {
                "throughput" => (row.output_rate, args.sla_throughput.is_some_and(|s| p < s)),
                _ => (f64::NAN, args.sla_latency.is_some_and(|s| p > s)),
            };
            verdicts.push(format!(
                "{} ({}): predicted {p:.1}{}{}",
                m.target,
                m.kind,
                if measured.is_finite() {
                    format!(", measured {measured:.1}")
                } else {
                    String::new()
                },
                if degrading {
                    "  SLA: DEGRADING"
                } else if args.sla_throughput.is_some() || args.sla_latency.is_some() {
                    "  SLA: ok"
                } else {
                    ""
                }
            ));
        }
        if args.live {
            print_table(&header, &cells, n, start.elapsed().as_secs_f64(), &verdicts);
        } else if !verdicts.is_empty() {
            eprintln!("sample {n}: {}", verdicts.join("; "));
        }
        rows.push(row);
        if args.samples.is_some_and(|s| n >= s)
            || args
                .duration
                .is_some_and(|d| start.elapsed().as_secs_f64() >= d)
        {
            break;
        }
    }
    if fmt == Format::Json {
        super::out(&format!(
            "{}\n",
            serde_json::json!({"samples": n, "columns": header, "unsupported": sampler.unsupported().iter().map(|(n, w)| serde_json::json!({"counter": n, "reason": w})).collect::<Vec<_>>()})
        ))?;
    }
    eprintln!("nfc monitor: {n} samples");
    Ok(ExitCode::SUCCESS)
}

/// The latest sample as a table, redrawn in place (ANSI home + clear).
fn print_table(header: &[String], cells: &[String], n: u64, secs: f64, verdicts: &[String]) {
    let mut t = String::from("\x1b[H\x1b[2J");
    t.push_str(&format!(
        "nfc monitor: sample {n} at {secs:.1} s (Ctrl-C stops)\n\n"
    ));
    t.push_str(&format!("{:<32} {:>16}\n", "input_rate (pps)", cells[0]));
    t.push_str(&format!("{:<32} {:>16}\n", "output_rate (pps)", cells[1]));
    for v in verdicts {
        t.push_str(&format!("{v}\n"));
    }
    for (h, c) in header.iter().zip(cells).skip(2) {
        t.push_str(&format!("{h:<32} {c:>16}\n"));
    }
    let _ = super::out(&t);
}
