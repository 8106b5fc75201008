//! Project automation, run as `cargo xtask <command>`:
//!
//! - `setup`: install what nfc needs on a fresh Debian 12 machine (idempotent:
//!   apt packages only when missing). `setup --corpus` also fetches the
//!   analyzer's real-world corpus from Debian source packages (see
//!   [`corpus`]). `setup` also provisions libtorch for the predictor from
//!   PyPI (see [`libtorch`]).
//! - `test`: setup, then the whole test suite, including the privileged
//!   network-namespace tests when run as root.
//! - `demo`: setup, build, and run the flagship example end to end.
//! - `bench`: criterion benches and end-to-end benches; writes
//!   `target/nfc-bench/report.md` and `report.json`.

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

mod corpus;
mod libtorch;
#[allow(unused_imports)] // for `test` and `bench`
pub use corpus::ensure_corpus;

/// Debian packages nfc needs, with the reason for each.
const APT_PACKAGES: &[(&str, &str)] = &[
    (
        "clang-19",
        "compiles NFs to shared objects and LLVM IR, and XDP programs to BPF",
    ),
    ("llvm-19-dev", "LLVM 19 libraries for the reducer (inkwell)"),
    ("libpolly-19-dev", "llvm-sys links Polly"),
    ("libzstd-dev", "llvm-sys links zstd"),
    (
        "libclang-rt-19-dev",
        "libFuzzer and AddressSanitizer runtimes for NF fuzzing",
    ),
    ("libbpf-dev", "BPF headers for the XDP redirect program"),
    (
        "valgrind",
        "deterministic instruction counts (callgrind) in benchmarks",
    ),
    (
        "stress-ng",
        "the resource stimulus of `nfc profile` (CPU, cache and memory stressors)",
    ),
    (
        "iproute2",
        "network namespaces and veth pairs for flash-rt tests",
    ),
    ("cmake", "builds HiGHS for the placer's ILP solver"),
    ("g++", "builds HiGHS and tree-sitter grammars"),
    (
        "dpdk-dev",
        "dpdk-testpmd: DPDK's own flow parser checks the FastClick target's RSS flow rules (tests/fastclick_target.rs)",
    ),
    (
        "python3-pip",
        "downloads libtorch (PyPI's torch wheel) for the predictor",
    ),
    (
        "python3-venv",
        "the predictor bench's scikit-learn comparison venv",
    ),
];

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let cmd = args.first().map(String::as_str).unwrap_or("help");
    let rest = &args[args.len().min(1)..];
    match cmd {
        "setup" => {
            let mut with_corpus = false;
            for a in rest {
                match a.as_str() {
                    "--corpus" => with_corpus = true,
                    other => bail!("unknown setup flag `{other}` (known: --corpus)"),
                }
            }
            setup()?;
            if with_corpus {
                corpus::ensure_corpus()?;
            }
            Ok(())
        }
        "test" => {
            setup()?;
            test(rest)
        }
        "demo" => {
            setup()?;
            demo()
        }
        "bench" => {
            setup()?;
            bench(rest)
        }
        _ => {
            eprintln!("usage: cargo xtask <setup|test|demo|bench>");
            eprintln!("  setup  install apt packages nfc needs (idempotent)");
            eprintln!("         --corpus: also fetch the analyzer's real-world corpus (Debian source packages) into $NFC_CORPUS_DIR or /var/tmp/nfc-corpus");
            eprintln!("  test   setup + the whole test suite (privileged netns tests when root)");
            eprintln!("  demo   setup + build + the flagship example end to end");
            eprintln!("  bench  setup + benchmarks; report in target/nfc-bench/");
            if cmd == "help" || cmd == "--help" {
                Ok(())
            } else {
                bail!("unknown xtask command `{cmd}`")
            }
        }
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

fn installed(pkg: &str) -> bool {
    Command::new("dpkg-query")
        .args(["-W", "-f=${Status}", pkg])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).contains("install ok installed"))
        .unwrap_or(false)
}

fn setup() -> Result<()> {
    let missing: Vec<&str> = APT_PACKAGES
        .iter()
        .map(|(p, _)| *p)
        .filter(|p| !installed(p))
        .collect();
    if missing.is_empty() {
        eprintln!(
            "xtask setup: all {} apt packages present",
            APT_PACKAGES.len()
        );
    } else {
        eprintln!("xtask setup: installing {}", missing.join(" "));
        for (p, why) in APT_PACKAGES.iter().filter(|(p, _)| missing.contains(p)) {
            eprintln!("  {p}: {why}");
        }
        run_cmd(&mut apt(&["update", "-qq"]))?;
        let mut install = vec!["install", "-y", "-qq", "--no-install-recommends"];
        install.extend(&missing);
        run_cmd(&mut apt(&install))?;
    }
    for tool in ["clang-19", "llvm-config-19"] {
        if which(tool).is_none()
            && !Path::new("/usr/lib/llvm-19/bin")
                .join(tool.trim_end_matches("-19"))
                .exists()
        {
            bail!("{tool} is still missing after setup");
        }
    }
    libtorch::ensure_libtorch()?;
    Ok(())
}

/// apt-get, through sudo when not root.
fn apt(args: &[&str]) -> Command {
    let mut c = if is_root() {
        Command::new("apt-get")
    } else {
        let mut c = Command::new("sudo");
        c.arg("apt-get");
        c
    };
    c.env("DEBIAN_FRONTEND", "noninteractive").args(args);
    c
}

fn which(tool: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|d| Path::new(d).join(tool))
        .find(|p| p.exists())
}

fn run_cmd(c: &mut Command) -> Result<()> {
    let status = c.status().with_context(|| format!("cannot start {c:?}"))?;
    if !status.success() {
        bail!("{c:?} failed with {status}");
    }
    Ok(())
}

fn cargo() -> Command {
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    c.current_dir(root());
    c
}

fn test(rest: &[String]) -> Result<()> {
    let privileged = is_root();
    if privileged {
        eprintln!("xtask test: running as root: privileged network-namespace tests are enabled");
    } else {
        eprintln!("xtask test: WARNING: not root: privileged network-namespace (AF_XDP) tests will be SKIPPED");
    }
    fetch_corpus_or_warn();
    let mut c = cargo();
    c.args(["test", "--workspace", "--no-fail-fast"]).args(rest);
    run_cmd(&mut c)
}

/// The analyzer's real-world corpus, for the tests and benches that measure
/// the analyzer on third-party code. A mirror outage must not hide the rest
/// of the suite: those tests then say SKIPPED loudly.
fn fetch_corpus_or_warn() {
    if let Err(e) = corpus::ensure_corpus() {
        eprintln!("xtask: WARNING: could not fetch the real-world corpus: {e:#}");
        eprintln!("xtask: WARNING: the analyzer's real-world tests will be SKIPPED");
    }
}

fn nfc_bin() -> Result<PathBuf> {
    run_cmd(cargo().args(["build", "--release", "--bin", "nfc"]))?;
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"));
    Ok(target.join("release").join("nfc"))
}

fn demo() -> Result<()> {
    let nfc = nfc_bin()?;
    let root = root();
    let out = root.join("target").join("nfc-demo");
    std::fs::create_dir_all(&out)?;
    let chain = root.join("examples").join("flowmage-3nf.yaml");
    let chain_s = chain.display().to_string();
    let trace = out.join("trace.pcap").display().to_string();
    let steps: Vec<(&str, Vec<String>)> = vec![
        ("validate the chain", vec!["check".into(), chain_s.clone()]),
        (
            "analyze each NF's source",
            vec!["analyze".into(), chain_s.clone()],
        ),
        (
            "explain what each stage decides",
            vec!["explain".into(), chain_s.clone()],
        ),
        (
            "build the FastClick target",
            vec![
                "build".into(),
                chain_s.clone(),
                "--target".into(),
                "fastclick".into(),
                "-o".into(),
                out.join("fastclick").display().to_string(),
                "--emit".into(),
                "facts,plan".into(),
            ],
        ),
        (
            "generate a trace",
            vec![
                "trace".into(),
                "gen".into(),
                "-o".into(),
                trace.clone(),
                "--flows".into(),
                "500".into(),
                "--packets".into(),
                "20000".into(),
            ],
        ),
        (
            "run the chain over the trace with the reference executor",
            vec![
                "run".into(),
                chain_s.clone(),
                "--pcap".into(),
                trace.clone(),
                "--out".into(),
                out.join("out.pcap").display().to_string(),
            ],
        ),
        (
            "reduce NFReducer's firewall + IDS chain (proven by differential execution)",
            vec![
                "build".into(),
                root.join("examples")
                    .join("ids-firewall.yaml")
                    .display()
                    .to_string(),
                "--emit".into(),
                "reduced".into(),
                "-o".into(),
                out.join("reduced").display().to_string(),
            ],
        ),
    ];
    for (what, args) in steps {
        eprintln!("\n==> {what}: nfc {}", args.join(" "));
        run_cmd(Command::new(&nfc).args(&args).current_dir(&root))?;
    }
    eprintln!("\ndemo finished; artefacts in {}", out.display());
    Ok(())
}

/// One benchmark step of `cargo xtask bench`.
struct BenchStep {
    name: &'static str,
    what: &'static str,
    args: Vec<String>,
    needs_root: bool,
}

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// The last JSON value printed on stdout (a whole-output document, or the
/// last line that parses), so benches can print tables for people and JSON
/// for the report.
fn last_json(stdout: &str) -> Option<serde_json::Value> {
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(stdout.trim()) {
        return Some(v);
    }
    stdout.lines().rev().find_map(|l| {
        let l = l.trim();
        (l.starts_with('{') || l.starts_with('['))
            .then(|| serde_json::from_str(l).ok())
            .flatten()
    })
}

/// The current UTC time as `YYYY-MM-DD HH:MM:SS UTC` (civil-from-days,
/// so xtask needs no date crate).
fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Cargo's build progress on stderr, which has no place in the report.
fn is_cargo_chatter(line: &str) -> bool {
    const STATUS: &[&str] = &[
        "Compiling",
        "Finished",
        "Running",
        "Blocking",
        "Downloaded",
        "Downloading",
        "Updating",
        "Locking",
        "Adding",
        "Fresh",
        "Building",
        "Executable",
        "Checking",
        "warning:",
        "Gnuplot",
        "Removed",
        "Packaging",
    ];
    let t = line.trim_start();
    t.is_empty() || STATUS.iter().any(|s| t.starts_with(s))
}

fn bench(rest: &[String]) -> Result<()> {
    let out = root().join("target").join("nfc-bench");
    std::fs::create_dir_all(&out)?;
    let only: Vec<&str> = rest.iter().map(String::as_str).collect();
    let steps = vec![
        BenchStep {
            name: "executor",
            what: "reference executor, 2 workers: the placer's plan vs the default (5-tuple RSS, every NF shared) on both FlowMage chains, wall and per-CPU-second throughput ratios",
            args: strs(&["bench", "-p", "flash-rt", "--bench", "executor"]),
            needs_root: false,
        },
        BenchStep {
            name: "plan-proof",
            what: "plan proof (release): per example chain at 2 and 4 workers, input packets, closed-loop replies and proof time (reference + planned runs, repairs)",
            args: strs(&["bench", "-p", "nfc", "--bench", "plan_proof"]),
            needs_root: false,
        },
        BenchStep {
            name: "placer",
            what: "placer (release, HiGHS): ILP and full placement time on random 16-NF chains and the FlowMage chains, vs brute force",
            args: strs(&["bench", "-p", "nfc-placer", "--bench", "solve"]),
            needs_root: false,
        },
        BenchStep {
            name: "smartnic",
            what: "SmartNIC models on Clara's released Agilio data: scale-out core count (GBDT vs kNN, linear, MLP, constants; held-out NFs) and colocation ranking (pairwise, pointwise, decomposed on knobs and on profile inputs only, vs random; held-out groups), the throughput-noise estimate and the noisy oracle's top-1",
            args: strs(&["run", "--release", "-p", "nfc-smartnic", "--example", "smartnic_bench"]),
            needs_root: false,
        },
        BenchStep {
            name: "coalescing",
            what: "SmartNIC access coalescing (Clara §4.4) on every built-in NF whose packet path touches two or more globals: k-means packs and an all-hot-globals pack vs the original, distinct cache lines of state and globals per packet (instrumented) and cachegrind D1 refs/misses per packet",
            args: strs(&["run", "--release", "-p", "nfc", "--bin", "nfc", "--", "smartnic", "eval-coalescing"]),
            needs_root: false,
        },
        BenchStep {
            name: "insight",
            what: "SmartNIC insight (Clara §3, §4.1) on the proxy ISA (riscv32, llc-19 -O2): LSTM vs DNN vs CNN vs GBDT, WMAPE per held-out NF (built-ins, real-world corpus units and Click elements that lower for riscv32) after training on synthesised programs; generator similarity (Table 1) vs a naive generator; CRC/LPM accelerator precision, recall and confusion table on held-out implementations",
            args: strs(&["run", "--release", "--example", "insight_bench"]),
            needs_root: false,
        },
        BenchStep {
            name: "analyzer",
            what: "analyzer on the real-world corpus (third-party code, labelled before analysis): accuracy per question and per code base, every miss, time per unit",
            args: strs(&["bench", "-p", "nfc-analyzer", "--bench", "realworld"]),
            needs_root: false,
        },
        BenchStep {
            name: "analyzer-inhouse",
            what: "analyzer: static analysis time per in-house NF, cold and cached",
            args: strs(&["bench", "-p", "nfc-analyzer", "--bench", "analyze"]),
            needs_root: false,
        },
        BenchStep {
            name: "reducer",
            what: "reducer: callgrind instructions/packet before -> after on NFReducer's scenarios, reduction time",
            args: strs(&["run", "--release", "-p", "nfc-reducer", "--example", "reducer_bench", "--", "3000"]),
            needs_root: false,
        },
        BenchStep {
            name: "reduced-flash",
            what: "flash-rt on veth: AF_XDP Mpps of examples/ids-firewall.yaml deployed unreduced (2 NF hosts) vs reduced (1), interleaved repeats, ratio per pair",
            args: strs(&["bench", "-p", "nfc", "--bench", "reduced_flash"]),
            needs_root: true,
        },
        BenchStep {
            name: "predictor",
            what: "predictor (INFOCOM'24) on the published onvm data: MLP (tch, grid on the validation fold), GBR, OLS and Dobrescu side by side on random 60/20/20 and leave-one-experiment-out, next to the paper's figures; scikit-learn on the same rows; training and inference time",
            args: strs(&["bench", "-p", "nfc-predictor", "--bench", "predictor"]),
            needs_root: false,
        },
        BenchStep {
            name: "profile-data",
            what: "nfc's own counter dataset and the flash cost model: collector overhead (flowmage-3nf, ABAB windows without/with `nfc monitor`, same deployment), `nfc profile` of flowmage-3nf and flash-dag under load, resource and both stimuli (seeds 1 and 2), interleaved closed-loop saturation of every example chain and benches/flash-cost-chains under two machine loads (as is, and a stress-ng CPU worker per CPU) with a machine probe around every window, the probe-scaled cost model's leave-one-chain-out error per load and `nfc build --emit prediction` vs a measurement right after it for every example under each load; into target/nfc-bench/own-data",
            args: strs(&["bench", "-p", "nfc", "--bench", "profile_data"]),
            needs_root: true,
        },
        BenchStep {
            name: "predictor-own",
            what: "predictor on nfc's own data (own-data from profile-data): cross-run (seed 1 → seed 2) and cross-topology (flowmage-3nf → flash-dag), MLP vs GBR vs linear, throughput and latency",
            args: strs(&["bench", "-p", "nfc-predictor", "--bench", "own_data"]),
            needs_root: false,
        },
        BenchStep {
            name: "flash",
            what: "flash-rt on veth: throughput vs chain length (closed and open loop, ingress drops, generator ceiling), zero-copy vs single-copy vs baselines, nfc run's default CPU placement vs --pin never vs --pin always, backpressure and idle CPU under the default placement",
            args: strs(&["bench", "-p", "flash-rt", "--bench", "flash_chain"]),
            needs_root: true,
        },
    ];
    if only.is_empty() || only.contains(&"analyzer") || only.contains(&"insight") {
        fetch_corpus_or_warn();
    }
    let root_user = is_root();
    // Steps run now replace their own entries; the others keep what an
    // earlier `cargo xtask bench <step>` measured (each section says when).
    let mut results = std::fs::read_to_string(out.join("report.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|v| v.as_object().cloned())
        .unwrap_or_default();
    let mut failed = vec![];
    for step in steps
        .iter()
        .filter(|s| only.is_empty() || only.contains(&s.name))
    {
        eprintln!("\n==> bench {}: {}", step.name, step.what);
        if step.needs_root && !root_user {
            eprintln!("    SKIPPED: needs root (network namespaces, AF_XDP)");
            std::fs::write(
                out.join(format!("{}.md", step.name)),
                format!(
                    "## {}\n\n{}\n\nSKIPPED: needs root.\n\n",
                    step.name, step.what
                ),
            )?;
            results.insert(
                step.name.into(),
                serde_json::json!({"skipped": "needs root"}),
            );
            continue;
        }
        let started = std::time::Instant::now();
        let output = cargo()
            .args(&step.args)
            .env("NFC_BENCH_OUT", &out)
            .output()?;
        let secs = started.elapsed().as_secs_f64();
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        std::fs::write(
            out.join(format!("{}.log", step.name)),
            format!("{stdout}\n--- stderr ---\n{stderr}"),
        )?;
        let ok = output.status.success();
        if !ok {
            failed.push(step.name);
            eprintln!(
                "    FAILED ({}); log: {}",
                output.status,
                out.join(format!("{}.log", step.name)).display()
            );
        } else {
            eprintln!("    done in {secs:.0} s");
        }
        // Each bench's tables for people: criterion lines and summaries on
        // stdout (minus the JSON document, which goes to report.json) and
        // tables on stderr (minus cargo's own build chatter).
        let json_line = stdout.lines().rev().find(|l| {
            let l = l.trim();
            l.starts_with('{') && serde_json::from_str::<serde_json::Value>(l).is_ok()
        });
        let summary: Vec<&str> = stdout
            .lines()
            .filter(|l| {
                !l.trim().is_empty()
                    && Some(*l) != json_line
                    && !l.starts_with("Benchmarking")
                    && !l.contains("Warming up")
                    && !l.contains("Collecting")
            })
            .chain(stderr.lines().filter(|l| !is_cargo_chatter(l)))
            .collect();
        let when = utc_now();
        std::fs::write(
            out.join(format!("{}.md", step.name)),
            format!(
                "## {}\n\n{}\n\n`cargo {}` ({}, {secs:.0} s, run at {when})\n\n```\n{}\n```\n\n",
                step.name,
                step.what,
                step.args.join(" "),
                if ok { "ok" } else { "FAILED" },
                summary.join("\n")
            ),
        )?;
        results.insert(
            step.name.into(),
            serde_json::json!({
                "what": step.what,
                "command": format!("cargo {}", step.args.join(" ")),
                "ok": ok,
                "seconds": secs,
                "run_at": when,
                "json": last_json(&stdout),
                "summary": summary,
            }),
        );
    }
    std::fs::write(
        out.join("report.json"),
        serde_json::to_string_pretty(&serde_json::Value::Object(results))?,
    )?;
    let mut md = String::from("# nfc benchmark report\n\nEvery number below was measured on this machine by `cargo xtask bench` (each section says when). Ratios compare configurations within one run; instruction counts come from valgrind callgrind.\n\n");
    for step in &steps {
        if let Ok(section) = std::fs::read_to_string(out.join(format!("{}.md", step.name))) {
            md.push_str(&section);
        }
    }
    std::fs::write(out.join("report.md"), md)?;
    eprintln!(
        "\nbench report: {} and report.json",
        out.join("report.md").display()
    );
    if !failed.is_empty() {
        bail!("benchmarks failed: {}", failed.join(", "));
    }
    Ok(())
}
