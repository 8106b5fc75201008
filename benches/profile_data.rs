//! nfc's own counter dataset and the collector's overhead, on flash-rt
//! chains on this machine (needs root: namespaces, AF_XDP, perf):
//!
//! 1. Collector overhead. examples/flowmage-3nf.yaml (unreduced, ingress
//!    and egress on two veths) served by `nfc run` in a namespace; flash-rt's
//!    AF_XDP generator drives it at full speed (1024 flows, 128-byte frames)
//!    from a peer namespace. Windows
//!    of `--window` seconds rotate, `--rounds` times, between no collector,
//!    `nfc monitor` at its default period (0.5 s), at 0.1 s (the fastest it
//!    allows), at 0.1 s at normal priority (the monitor is SCHED_IDLE by
//!    default) and at 0.1 s reading schedstat only (`--no-perf`), against the
//!    same chain in one run. Reported: Mpps per window, per configuration
//!    the median of its ratios to the same round's no-collector window, and
//!    the run-to-run noise (median relative change between consecutive
//!    no-collector windows).
//! 2. Dataset. `nfc profile` on flowmage-3nf and flash-dag under the load,
//!    resource and both stimuli, seeds 1 and 2 (separately collected runs:
//!    each starts the chain afresh with another schedule), `--duration`
//!    seconds each, into `$NFC_BENCH_OUT/own-data/<chain>/<stimulus>-s<seed>.csv`
//!    (the `predictor-own` step trains and evaluates on them).
//! 3. Measured saturation throughput of every example chain (each
//!    profile's closed-loop calibration; the two other examples get a short
//!    load profile of their own), for the predict stage's check:
//!    `own-data/measured.json`.
//!
//! 4. The predict stage: each example chain's per-NF callgrind costs, the
//!    flash cost model fitted on (3), its leave-one-chain-out error
//!    (`own-data/cost-model.json`), and `nfc build examples/flowmage-3nf.yaml
//!    --target flash --emit prediction` with that model against the
//!    measured saturation.
//!
//! Without `--bench` (`cargo test` mode) it does nothing. The JSON document
//! is the last stdout line.

use flash_rt::host::now_ns;
use flash_rt::xdp::loadgen::{LoadGen, LoadGenConfig};
use std::io::BufRead;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const NFC: &str = env!("CARGO_BIN_EXE_nfc");

fn ip(args: &[&str]) {
    let out = Command::new("ip").args(args).output().expect("run ip");
    assert!(
        out.status.success(),
        "ip {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

struct Net {
    dut: String,
    peer: String,
}

impl Net {
    fn new() -> Net {
        let t = std::process::id() % 100_000;
        let net = Net {
            dut: format!("nfpdd{t}"),
            peer: format!("nfpdp{t}"),
        };
        for ns in [&net.dut, &net.peer] {
            ip(&["netns", "add", ns]);
            let _ = Command::new("ip")
                .args([
                    "netns",
                    "exec",
                    ns,
                    "sysctl",
                    "-qw",
                    "net.ipv6.conf.all.disable_ipv6=1",
                    "net.ipv6.conf.default.disable_ipv6=1",
                ])
                .status();
        }
        for (a, b) in [("vi0", "vi1"), ("vo0", "vo1")] {
            ip(&[
                "-n", &net.peer, "link", "add", a, "type", "veth", "peer", "name", b, "netns",
                &net.dut,
            ]);
            ip(&["-n", &net.peer, "link", "set", a, "up"]);
            ip(&["-n", &net.dut, "link", "set", b, "up"]);
        }
        net
    }
}

impl Drop for Net {
    fn drop(&mut self) {
        for ns in [&self.dut, &self.peer] {
            let _ = Command::new("ip").args(["netns", "del", ns]).status();
        }
    }
}

fn build(chain: &Path, out: &Path, cache: &Path) {
    let o = Command::new(NFC)
        .arg("build")
        .arg(chain)
        .args(["--target", "flash", "--no-reduce", "-o"])
        .arg(out)
        .arg("--cache-dir")
        .arg(cache)
        .output()
        .expect("nfc build");
    assert!(
        o.status.success(),
        "build {}: {}",
        chain.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    let file = out.join("deployment.json");
    let mut d = flash_rt::deploy::Deployment::load(&file).expect("deployment");
    d.monitor.socket = out.join("mon.sock");
    std::fs::write(&file, d.to_json()).expect("deployment");
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        f64::NAN
    } else if v.len() % 2 == 1 {
        v[v.len() / 2]
    } else {
        (v[v.len() / 2 - 1] + v[v.len() / 2]) / 2.0
    }
}

/// Mpps out of the chain over `secs` with the generator at full speed
/// (open loop: an NF that drops cannot stall it).
fn window(g: &mut LoadGen, secs: f64) -> f64 {
    let start = now_ns();
    let end = start + (secs * 1e9) as u64;
    let got0 = g.received;
    loop {
        let now = now_ns();
        if now >= end {
            break;
        }
        if g.send(256, now) == 0 && g.tx_backlog() > 0 {
            g.kick();
        }
        g.recv(256, now_ns(), None);
    }
    (g.received - got0) as f64 / ((now_ns() - start) as f64 / 1e9) / 1e6
}

/// The collector configurations of the overhead measurement.
const VARIANTS: &[(&str, Option<&[&str]>)] = &[
    ("none", None),
    (
        "nfc monitor --period 0.5 (default)",
        Some(&["--period", "0.5"]),
    ),
    ("nfc monitor --period 0.1", Some(&["--period", "0.1"])),
    (
        "nfc monitor --period 0.1 --normal-priority",
        Some(&["--period", "0.1", "--normal-priority"]),
    ),
    (
        "nfc monitor --period 0.1 --no-perf (schedstat only)",
        Some(&["--period", "0.1", "--no-perf"]),
    ),
];

fn overhead(work: &Path, pairs: usize, secs: f64) -> serde_json::Value {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let yaml = std::fs::read_to_string(root.join("examples/flowmage-3nf.yaml")).expect("example");
    let yaml = yaml.replacen(
        "targets:\n",
        "targets:\n  flash: {ingress: vi1, egress: vo1}\n",
        1,
    );
    let chain = work.join("flowmage-3nf-veth.yaml");
    std::fs::write(&chain, yaml).expect("chain");
    let dep = work.join("overhead-dep");
    build(&chain, &dep, &work.join("cache"));
    let net = Net::new();
    let mut run = Command::new("ip")
        .args(["netns", "exec", &net.dut, NFC, "run"])
        .arg(&dep)
        .args(["--duration", "600"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("nfc run");
    let stderr = run.stderr.take().expect("stderr");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for l in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            let _ = tx.send(l);
        }
    });
    let mut attached = 0;
    while attached < 3 {
        let l = rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("NFs attach");
        if l.contains("attached NF") {
            attached += 1;
        }
    }
    std::thread::spawn(move || while rx.recv().is_ok() {});
    let peer = net.peer.clone();
    let dep2 = dep.clone();
    let result = std::thread::spawn(move || {
        let f = std::fs::File::open(format!("/run/netns/{peer}")).expect("netns");
        // SAFETY: setns for this thread only.
        assert_eq!(unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) }, 0);
        // The same traffic `nfc profile` sends: 1024 flows, 128-byte frames.
        let spec = nfc_core::chain::TrafficSpec {
            flows: 1024,
            packets: 4096,
            sizes: nfc_core::chain::SizeMix::Fixed(128),
            ..Default::default()
        };
        let (packets, _) = flash_rt::trace::generate_packets(&spec).expect("traffic");
        let frames: Vec<Vec<u8>> = packets.iter().map(|p| p.data.to_vec()).collect();
        let cfg = LoadGenConfig {
            stamp: false,
            ..LoadGenConfig::default()
        };
        let mut g = LoadGen::with_templates("vi0", "vo0", &frames, &cfg).expect("generator");
        window(&mut g, 1.0);
        // Per round every configuration once, the order rotating.
        let mut mpps: Vec<Vec<f64>> = vec![vec![]; VARIANTS.len()];
        for r in 0..pairs {
            let mut round = vec![0.0; VARIANTS.len()];
            for k in 0..VARIANTS.len() {
                let v = (k + r) % VARIANTS.len();
                let mut mon = VARIANTS[v].1.map(|args| {
                    Command::new(NFC)
                        .arg("monitor")
                        .arg(&dep2)
                        .args(args)
                        .args(["-o", "/dev/null"])
                        .stderr(Stdio::null())
                        .spawn()
                        .expect("nfc monitor")
                });
                if mon.is_some() {
                    std::thread::sleep(std::time::Duration::from_millis(300));
                }
                round[v] = window(&mut g, secs);
                if let Some(m) = mon.as_mut() {
                    // SAFETY: signalling our child.
                    unsafe { libc::kill(m.id() as i32, libc::SIGTERM) };
                    let _ = m.wait();
                }
            }
            eprintln!(
                "round {r}: {}",
                VARIANTS
                    .iter()
                    .zip(&round)
                    .map(|((n, _), x)| format!("{n} {x:.4}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            for (v, x) in round.into_iter().enumerate() {
                mpps[v].push(x);
            }
        }
        mpps
    })
    .join()
    .expect("generator thread");
    // SAFETY: signalling our child.
    unsafe { libc::kill(run.id() as i32, libc::SIGTERM) };
    let _ = run.wait();
    drop(net);
    let mpps = result;
    // Noise: relative difference between consecutive windows without the collector.
    let without = &mpps[0];
    let noise: Vec<f64> = without
        .windows(2)
        .map(|w| ((w[1] - w[0]) / w[0]).abs())
        .collect();
    let noise = median(&noise);
    let mut variants = vec![];
    eprintln!(
        "\n| collector | median Mpps | median ratio to none (same round) | vs noise ({:.1}%) |",
        noise * 100.0
    );
    eprintln!("|---|---|---|---|");
    for (v, (name, _)) in VARIANTS.iter().enumerate() {
        let ratios: Vec<f64> = mpps[v]
            .iter()
            .zip(without)
            .filter(|(_, w)| **w > 0.0)
            .map(|(x, w)| x / w)
            .collect();
        let ratio = median(&ratios);
        let below = (1.0 - ratio).abs() <= noise;
        eprintln!(
            "| {name} | {:.4} | {ratio:.3} ({:+.1}%) | {} |",
            median(&mpps[v]),
            (ratio - 1.0) * 100.0,
            if v == 0 {
                "-"
            } else if below {
                "below the noise"
            } else {
                "ABOVE the noise"
            }
        );
        variants.push(serde_json::json!({"collector": name, "mpps": mpps[v], "ratios": ratios, "median_ratio": ratio, "below_noise": below}));
    }
    serde_json::json!({"noise": noise, "variants": variants})
}

fn profile(
    dep: &Path,
    stimulus: &str,
    seed: u32,
    secs: f64,
    out: &Path,
) -> Option<serde_json::Value> {
    let o = Command::new(NFC)
        .arg("profile")
        .arg(dep)
        .args([
            "--stimulus",
            stimulus,
            "--duration",
            &secs.to_string(),
            "--phase",
            "4",
            "--period",
            "0.5",
        ])
        .args(["--seed", &seed.to_string(), "-o"])
        .arg(out)
        .output()
        .expect("nfc profile");
    if !o.status.success() {
        eprintln!(
            "profile {} {stimulus} s{seed} FAILED: {}",
            dep.display(),
            String::from_utf8_lossy(&o.stderr)
        );
        return None;
    }
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{}.json", out.display())).ok()?)
            .ok()?;
    eprintln!(
        "profile {:<14} {stimulus:<9} seed {seed}: {} rows, saturation {:.0} pps",
        dep.file_name().unwrap_or_default().to_string_lossy(),
        r["rows"],
        r["saturation_pps"].as_f64().unwrap_or(0.0)
    );
    Some(r)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if !args.iter().any(|a| a == "--bench") {
        return;
    }
    let opt = |name: &str, default: f64| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let secs = opt("--duration", 20.0);
    let pairs = opt("--rounds", 5.0) as usize;
    let win = opt("--window", 2.0);
    // SAFETY: geteuid never fails.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("profile-data: SKIPPED: needs root (network namespaces, AF_XDP, perf)");
        println!("{}", serde_json::json!({"skipped": "needs root"}));
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = std::env::var_os("NFC_BENCH_OUT")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/nfc-bench"))
        .join("own-data");
    std::fs::create_dir_all(&out).expect("out dir");
    let work = tempfile::tempdir_in("/tmp").expect("tempdir");
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(work.path(), std::fs::Permissions::from_mode(0o755))
            .expect("chmod");
    }
    eprintln!(
        "load average before: {}",
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
    // `--predict-only`: step 4 alone, on the measurements already in own-data.
    let predict_only = args.iter().any(|a| a == "--predict-only");
    let over = if predict_only {
        serde_json::Value::Null
    } else {
        overhead(work.path(), pairs, win)
    };
    // `--overhead-only`: step 1 alone.
    if args.iter().any(|a| a == "--overhead-only") {
        println!("{}", serde_json::json!({"overhead": over}));
        return;
    }
    let mut measured = serde_json::Map::new();
    let mut runs = vec![];
    if predict_only {
        measured = serde_json::from_str(
            &std::fs::read_to_string(out.join("measured.json"))
                .expect("own-data/measured.json (run the bench without --predict-only first)"),
        )
        .expect("measured.json");
    }
    for chain in ["flowmage-3nf", "flash-dag", "flowmage-2nf", "ids-firewall"]
        .into_iter()
        .filter(|_| !predict_only)
    {
        let dep = work.path().join(chain);
        build(
            &root.join(format!("examples/{chain}.yaml")),
            &dep,
            &work.path().join("cache"),
        );
        let dir = out.join(chain);
        std::fs::create_dir_all(&dir).expect("chain dir");
        let full = matches!(chain, "flowmage-3nf" | "flash-dag");
        let plan: Vec<(&str, u32)> = if full {
            ["load", "resource", "both"]
                .iter()
                .flat_map(|s| [(*s, 1), (*s, 2)])
                .collect()
        } else {
            vec![("load", 1)]
        };
        let mut sat = vec![];
        for (stim, seed) in plan {
            let d = if full { secs } else { 4.0 };
            if let Some(r) = profile(
                &dep,
                stim,
                seed,
                d,
                &dir.join(format!("{stim}-s{seed}.csv")),
            ) {
                sat.push(r["saturation_pps"].as_f64().unwrap_or(0.0));
                runs.push(serde_json::json!({"chain": chain, "stimulus": stim, "seed": seed, "rows": r["rows"], "saturation_pps": r["saturation_pps"], "unsupported": r["unsupported"]}));
            }
        }
        measured.insert(
            chain.into(),
            serde_json::json!({"saturation_pps": sat, "median_pps": median(&sat)}),
        );
    }
    if !predict_only {
        std::fs::write(
            out.join("measured.json"),
            serde_json::to_string_pretty(&measured).expect("json"),
        )
        .expect("measured.json");
    }
    // 4. The predict stage: per-NF callgrind costs of every example chain,
    // the cost model fitted on the measured saturation, its
    // leave-one-chain-out error, and `nfc build --emit prediction` checked
    // against the measurement.
    let mut fit_rows = vec![];
    for (chain, m) in &measured {
        let path = root.join(format!("examples/{chain}.yaml"));
        let (spec, _) = nfc::driver::load_chain(&path).expect("example loads");
        let pps = m["median_pps"].as_f64().unwrap_or(f64::NAN);
        match nfc::prediction::measure_costs(
            &spec,
            &path,
            Path::new(NFC),
            &work.path().join("cache"),
        ) {
            Ok(costs) if pps.is_finite() && pps > 0.0 => {
                eprintln!(
                    "costs {chain:<14} {}",
                    costs
                        .iter()
                        .map(|c| format!(
                            "{} {:.0} instr, {:.0} mem, {:.2} D1 miss/pkt",
                            c.nf, c.instructions, c.memory_accesses, c.d1_misses
                        ))
                        .collect::<Vec<_>>()
                        .join("; ")
                );
                fit_rows.push((chain.clone(), costs, pps));
            }
            Ok(_) => eprintln!("costs {chain}: no measured saturation"),
            Err(e) => eprintln!("costs {chain}: FAILED: {e}"),
        }
    }
    let provenance = format!(
        "nfc profile saturation (1024 flows, 128-byte frames, generator at full speed) on this 2-CPU VM, {}; callgrind over each chain's traffic profile ({} packets)",
        std::process::Command::new("date").arg("-u").output().map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string()).unwrap_or_default(),
        nfc::prediction::COST_PACKETS
    );
    let model = nfc::prediction::CostModel::fit(&fit_rows, provenance);
    let mut check = serde_json::Value::Null;
    if let Some(m) = &model {
        let path = out.join("cost-model.json");
        std::fs::write(&path, serde_json::to_string_pretty(m).expect("json")).expect("cost model");
        eprintln!(
            "\ncost model: {:.1} ns per hop + {:.3} ns per NF instruction; leave-one-chain-out errors {:?}; reported error {:.1}%",
            m.ns_per_hop,
            m.ns_per_instruction,
            m.loco_errors.iter().map(|(k, v)| format!("{k} {:.1}%", v * 100.0)).collect::<Vec<_>>(),
            m.error * 100.0
        );
        eprintln!(
            "\n| chain | measured pps | predicted pps (all chains) | leave-one-chain-out error |"
        );
        eprintln!("|---|---|---|---|");
        for (chain, costs, pps) in &fit_rows {
            let p = m.predict(costs, "bench");
            eprintln!(
                "| {chain} | {pps:.0} | {:.0} | {:.1}% |",
                p.throughput_mpps * 1e6,
                m.loco_errors.get(chain).copied().unwrap_or(f64::NAN) * 100.0
            );
        }
        // The acceptance check: nfc build … --emit prediction vs the measured run.
        let dir = work.path().join("predict-build");
        let o = Command::new(NFC)
            .arg("build")
            .arg(root.join("examples/flowmage-3nf.yaml"))
            .args([
                "--target",
                "flash",
                "--emit",
                "prediction",
                "--no-reduce",
                "--cost-model",
            ])
            .arg(&path)
            .arg("-o")
            .arg(&dir)
            .arg("--cache-dir")
            .arg(work.path().join("cache"))
            .output()
            .expect("nfc build");
        if o.status.success() {
            let p: serde_json::Value = serde_json::from_str(
                &std::fs::read_to_string(dir.join("prediction.json")).expect("prediction.json"),
            )
            .expect("json");
            let pred = p["throughput_mpps"].as_f64().unwrap_or(f64::NAN) * 1e6;
            let err = p["error"].as_f64().unwrap_or(f64::NAN);
            let meas = measured["flowmage-3nf"]["median_pps"]
                .as_f64()
                .unwrap_or(f64::NAN);
            let rel = ((pred - meas) / meas).abs();
            eprintln!(
                "\nnfc build examples/flowmage-3nf.yaml --target flash --emit prediction: predicted {pred:.0} pps (bottleneck {}), measured {meas:.0} pps: off by {:.1}%, model's reported error {:.1}% -> {}",
                p["bottleneck"].as_str().unwrap_or("?"),
                rel * 100.0,
                err * 100.0,
                if rel <= err { "within" } else { "NOT within" }
            );
            check = serde_json::json!({"predicted_pps": pred, "measured_pps": meas, "relative_error": rel, "reported_error": err, "within": rel <= err, "prediction": p});
        } else {
            eprintln!(
                "nfc build --emit prediction FAILED: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
    }
    eprintln!("\nchain          median saturation (generator at full speed, pps out)");
    for (c, m) in &measured {
        eprintln!(
            "{c:<14} {:.0}",
            m["median_pps"].as_f64().unwrap_or(f64::NAN)
        );
    }
    eprintln!(
        "load average after: {}",
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
    println!(
        "{}",
        serde_json::json!({"overhead": over, "runs": runs, "measured": measured, "cost_model": model, "predict_check": check, "data": out.display().to_string()})
    );
}
