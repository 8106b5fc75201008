//! `nfc monitor` and `nfc profile` on a real flash deployment
//! (examples/flowmage-3nf.yaml, built unreduced): the monitor writes one row
//! per period with the NF hosts' counters; a profile under both stimuli
//! writes a dataset the predictor's loader schema expects and leaves no
//! namespace, cgroup, stressor, process or directory behind — also when it
//! is interrupted with SIGINT mid-run. Names carry this process's id (other
//! netns tests run concurrently). Needs root; otherwise prints SKIPPED.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const NFC: &str = env!("CARGO_BIN_EXE_nfc");

fn root_or_skip(test: &str) -> bool {
    // SAFETY: geteuid never fails.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("SKIPPED: needs root ({test}: network namespaces, XDP, perf)");
        return false;
    }
    if Command::new("stress-ng").arg("--version").output().is_err() {
        eprintln!("SKIPPED: stress-ng missing ({test}); `cargo xtask setup` installs it");
        return false;
    }
    true
}

/// flowmage-3nf built for flash into a world-readable temp dir, with a
/// monitor socket of its own.
fn deployment(dir: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dep = dir.join("dep");
    let out = Command::new(NFC)
        .arg("build")
        .arg(root.join("examples/flowmage-3nf.yaml"))
        .args(["--target", "flash", "--no-reduce", "-o"])
        .arg(&dep)
        .arg("--cache-dir")
        .arg(dir.join("cache"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "build: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let file = dep.join("deployment.json");
    let mut d = flash_rt::deploy::Deployment::load(&file).unwrap();
    d.monitor.socket = dir.join("mon.sock");
    std::fs::write(&file, d.to_json()).unwrap();
    dep
}

fn tag() -> String {
    format!("t{}", std::process::id() % 100_000)
}

/// Everything a profile with `tag` could leave behind.
fn leftovers(tag: &str) -> Vec<String> {
    let mut left = vec![];
    for ns in [format!("nfcpd{tag}"), format!("nfcpp{tag}")] {
        if Path::new("/run/netns").join(&ns).exists() {
            left.push(format!("netns {ns}"));
        }
    }
    let cg = format!("/sys/fs/cgroup/cpu/nfc-profile-{tag}");
    if Path::new(&cg).exists() {
        left.push(cg);
    }
    let work = format!("/tmp/nfc-profile-{tag}");
    if Path::new(&work).exists() {
        left.push(work.clone());
    }
    // Processes: stress-ng runs with --temp-path under the work dir, `nfc
    // run` and the NF hosts name the deployment copy in it.
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(cmd) = std::fs::read(e.path().join("cmdline")) {
            let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
            if cmd.contains(&work) {
                left.push(format!(
                    "process {}: {cmd}",
                    e.file_name().to_string_lossy()
                ));
            }
        }
    }
    left
}

fn wait_gone(tag: &str) -> Vec<String> {
    // Processes may take a moment to be reaped by init.
    let t0 = Instant::now();
    loop {
        let l = leftovers(tag);
        if l.is_empty() || t0.elapsed() > Duration::from_secs(5) {
            return l;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn check_dataset(csv: &Path) {
    let text = std::fs::read_to_string(csv).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(&header[..3], &["input_rate", "output_rate", "latency"]);
    for nf in ["psd", "policer", "counter"] {
        for c in ["task-clock", "context-switches", "run-delay"] {
            let col = format!("{nf}_{c}");
            assert!(
                header.contains(&col.as_str()),
                "no column {col}: {header:?}"
            );
        }
    }
    let rows: Vec<Vec<f64>> = lines
        .map(|l| l.split(',').map(|c| c.parse::<f64>().unwrap()).collect())
        .collect();
    assert!(!rows.is_empty());
    assert!(rows
        .iter()
        .all(|r| r.len() == header.len() && r.iter().all(|v| v.is_finite() && *v >= 0.0)));
    // Packets went through, and the NF hosts used CPU for them.
    assert!(rows.iter().any(|r| r[1] > 0.0), "no row with output");
    let tc = header.iter().position(|h| *h == "psd_task-clock").unwrap();
    assert!(rows.iter().any(|r| r[tc] > 0.0), "the first NF never ran");
}

/// A network namespace of this test with a veth pair `eth0`/`peer0` up in
/// it; removed on drop.
struct Netns(String);

impl Netns {
    fn with_veth(name: &str) -> Netns {
        assert!(Command::new("ip")
            .args(["netns", "add", name])
            .status()
            .unwrap()
            .success());
        let ns = Netns(name.to_string());
        for args in [
            vec![
                "-n", name, "link", "add", "eth0", "type", "veth", "peer", "name", "peer0",
            ],
            vec!["-n", name, "link", "set", "eth0", "up"],
            vec!["-n", name, "link", "set", "peer0", "up"],
        ] {
            assert!(Command::new("ip").args(&args).status().unwrap().success());
        }
        ns
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        let _ = Command::new("ip").args(["netns", "del", &self.0]).status();
    }
}

#[test]
fn monitor_samples_a_running_chain_and_profile_leaves_nothing_behind() {
    if !root_or_skip("profile") {
        return;
    }
    let dir = tempfile::tempdir_in("/tmp").unwrap();
    let dep = deployment(dir.path());

    // 1. nfc monitor on the chain served in a namespace of ours.
    let ns = format!("nfcmon{}", std::process::id() % 100_000);
    let _ns = Netns::with_veth(&ns);
    let mut run = Command::new("ip")
        .args(["netns", "exec", &ns, NFC, "run"])
        .arg(&dep)
        .args(["--duration", "60"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait until every NF attached (the monitor answers with all pids).
    let csv = dir.path().join("monitor.csv");
    let t0 = Instant::now();
    let monitored = loop {
        let t = Instant::now();
        let out = Command::new(NFC)
            .arg("monitor")
            .arg(&dep)
            .args(["--period", "0.2", "--samples", "5", "-o"])
            .arg(&csv)
            .output()
            .unwrap();
        if out.status.success() {
            break Some((
                t.elapsed(),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            ));
        }
        if t0.elapsed() > Duration::from_secs(30) {
            eprintln!("monitor: {}", String::from_utf8_lossy(&out.stderr));
            break None;
        }
        std::thread::sleep(Duration::from_millis(300));
    };
    // SAFETY: signalling our child.
    unsafe { libc::kill(run.id() as i32, libc::SIGTERM) };
    let _ = run.wait();
    let (took, log) = monitored.expect("nfc monitor never attached to the running chain");
    let text = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 6, "header + 5 samples:\n{text}");
    assert!(
        lines[0].starts_with("input_rate,output_rate,psd_"),
        "{}",
        lines[0]
    );
    // Five periods of 0.2 s cannot take less than 0.8 s.
    assert!(
        took >= Duration::from_millis(800),
        "5 samples at 0.2 s in {took:?}"
    );
    // Hardware counters are either columns or reported unsupported.
    for hw in ["instructions", "cycles", "LLC-loads"] {
        assert!(
            lines[0].contains(&format!("psd_{hw}"))
                || log.contains(&format!("`{hw}` not supported")),
            "{hw}: neither a column nor reported: {log}"
        );
    }

    // 2. A complete profile under both stimuli.
    let t = tag();
    let data = dir.path().join("data.csv");
    let out = Command::new(NFC)
        .arg("profile")
        .arg(&dep)
        .args([
            "--stimulus",
            "both",
            "--duration",
            "4",
            "--phase",
            "2",
            "--period",
            "0.5",
            "--seed",
            "3",
            "--tag",
            &t,
            "-o",
        ])
        .arg(&data)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "profile: {err}");
    check_dataset(&data);
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{}.json", data.display())).unwrap())
            .unwrap();
    assert!(report["saturation_pps"].as_f64().unwrap() > 0.0);
    assert_eq!(report["phases"].as_array().unwrap().len(), 2);
    let left = wait_gone(&t);
    assert!(left.is_empty(), "left behind: {left:?}\n{err}");

    // 3. Interrupted with SIGINT in the middle of a resource phase.
    let t2 = format!("{t}i");
    let data2 = dir.path().join("data2.csv");
    let mut child = Command::new(NFC)
        .arg("profile")
        .arg(&dep)
        .args([
            "--stimulus",
            "resource",
            "--duration",
            "60",
            "--phase",
            "30",
            "--seed",
            "1",
            "--tag",
            &t2,
            "-o",
        ])
        .arg(&data2)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    // Until rows are being written (the first phase's stimulus is on).
    while std::fs::read_to_string(&data2)
        .map(|s| s.lines().count())
        .unwrap_or(0)
        < 3
    {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "no rows from the profile"
        );
        assert!(child.try_wait().unwrap().is_none(), "profile ended early");
        std::thread::sleep(Duration::from_millis(100));
    }
    let during = leftovers(&t2);
    assert!(
        during.iter().any(|l| l.starts_with("netns")),
        "nothing created? {during:?}"
    );
    // SAFETY: signalling our child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "interrupted profile: {err}");
    assert!(
        t0.elapsed() < Duration::from_secs(50),
        "SIGINT did not stop the profile"
    );
    let left = wait_gone(&t2);
    assert!(left.is_empty(), "left behind after SIGINT: {left:?}\n{err}");
}

/// `nfc monitor --model`: live prediction on a running flowmage-3nf, with a
/// throughput model (the MLP, tiny grid) and a latency model (least squares)
/// trained here on the 32 rows of a committed flowmage-3nf profile (same NF
/// ids, so the same feature columns). Every sample gets both predictions
/// next to the measurement; an SLA the prediction cannot meet is flagged
/// `SLA: DEGRADING`, one it always meets `SLA: ok`. Needs `nfc-predict`
/// beside nfc (the workspace build `cargo xtask test` runs builds it).
#[test]
fn monitor_predicts_live_and_flags_the_sla() {
    if !root_or_skip("monitor --model") {
        return;
    }
    let predict = Path::new(NFC).with_file_name("nfc-predict");
    assert!(
        predict.is_file(),
        "{} missing: build the workspace (`cargo build -p nfc-predict`)",
        predict.display()
    );
    let dir = tempfile::tempdir_in("/tmp").unwrap();
    let dep = deployment(dir.path());
    // The tiny dataset: a real profile's header and 32 rows.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let full =
        std::fs::read_to_string(root.join("data/profiles/flowmage-3nf/load-s1.csv")).unwrap();
    let tiny: Vec<&str> = full.lines().take(33).collect();
    assert_eq!(tiny.len(), 33, "the committed profile has 32 rows");
    let data = dir.path().join("tiny.csv");
    std::fs::write(&data, tiny.join("\n") + "\n").unwrap();
    let mut models = vec![];
    for (target, kind, extra) in [
        ("throughput", "mlp", &["--grid", "tiny"][..]),
        ("latency", "linear", &[][..]),
    ] {
        let m = dir.path().join(format!("{target}-model"));
        let o = Command::new(NFC)
            .args(["predict", "train", "--target", target, "--model", kind])
            .args(extra)
            .args(["--seed", "1", "--data"])
            .arg(&data)
            .arg("-o")
            .arg(&m)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "train {target}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        models.push(m);
    }

    let ns = format!("nfclive{}", std::process::id() % 100_000);
    let _ns = Netns::with_veth(&ns);
    struct Kill(std::process::Child);
    impl Drop for Kill {
        fn drop(&mut self) {
            // SAFETY: signalling our child.
            unsafe { libc::kill(self.0.id() as i32, libc::SIGTERM) };
            let _ = self.0.wait();
        }
    }
    let run = Kill(
        Command::new("ip")
            .args(["netns", "exec", &ns, NFC, "run"])
            .arg(&dep)
            .args(["--duration", "60"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let monitor = |sla: &[&str]| -> Option<(String, String)> {
        let csv = dir.path().join("live.csv");
        let t0 = Instant::now();
        loop {
            let out = Command::new(NFC)
                .arg("monitor")
                .arg(&dep)
                .args(["--period", "0.2", "--samples", "3", "-o"])
                .arg(&csv)
                .args(["--model"])
                .arg(&models[0])
                .arg("--model")
                .arg(&models[1])
                .args(sla)
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr).into_owned();
            if out.status.success() {
                return Some((err, std::fs::read_to_string(&csv).unwrap()));
            }
            // Before every NF attached the monitor cannot name all hosts.
            if t0.elapsed() > Duration::from_secs(30) {
                eprintln!("monitor --model: {err}");
                return None;
            }
            std::thread::sleep(Duration::from_millis(300));
        }
    };
    let flagged = monitor(&["--sla-throughput", "1e15"]);
    let fine = monitor(&["--sla-throughput=-1e15", "--sla-latency", "1e15"]);
    drop(run);
    let (log, csv) = flagged.expect("nfc monitor --model never ran on the chain");
    // The measurement itself is still written, one row per sample.
    assert_eq!(csv.lines().count(), 4, "header + 3 samples:\n{csv}");
    let samples: Vec<&str> = log.lines().filter(|l| l.starts_with("sample ")).collect();
    assert_eq!(samples.len(), 3, "one prediction line per sample:\n{log}");
    for s in &samples {
        // Both models answer with a number; throughput is shown beside
        // the measured output rate.
        let num = |after: &str| -> f64 {
            let rest = &s[s
                .find(after)
                .unwrap_or_else(|| panic!("no `{after}` in {s}"))
                + after.len()..];
            rest.split([',', ';', ' '])
                .next()
                .unwrap()
                .parse()
                .unwrap_or_else(|_| panic!("no number after `{after}` in {s}"))
        };
        assert!(num("throughput (mlp): predicted ").is_finite(), "{s}");
        assert!(num("measured ").is_finite(), "{s}");
        assert!(num("latency (linear): predicted ").is_finite(), "{s}");
        assert!(
            s.contains("SLA: DEGRADING"),
            "an SLA of 1e15 pps is not met: {s}"
        );
    }
    let (log, _) = fine.expect("nfc monitor --model (second run)");
    let samples: Vec<&str> = log.lines().filter(|l| l.starts_with("sample ")).collect();
    assert_eq!(samples.len(), 3, "{log}");
    assert!(
        samples
            .iter()
            .all(|s| s.contains("SLA: ok") && !s.contains("DEGRADING")),
        "an SLA every prediction meets is flagged:\n{log}"
    );
}
