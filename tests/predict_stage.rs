//! The predict stage of `nfc build` (`--emit prediction`): without a
//! calibrated model it answers E0901 (exit 1) before measuring anything;
//! with the shipped model it measures every NF of flowmage-3nf under
//! callgrind, probes the machine, and writes a prediction that names its
//! model, data, error, bottleneck, per-NF features and the machine state
//! it was scaled to (skipped loudly without valgrind).
//! The cap: a chain whose NF limits a rate (here a token-bucket policer,
//! configured by the test) delivers what the time-faithful replay lets
//! through, set by the configured rate; a chain that drops nothing keeps
//! the cost model's capacity.

use std::path::Path;
use std::process::Command;

const NFC: &str = env!("CARGO_BIN_EXE_nfc");

fn build(dir: &Path, extra: &[&str]) -> std::process::Output {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    Command::new(NFC)
        .arg("build")
        .arg(root.join("examples/flowmage-3nf.yaml"))
        .args(["--emit", "prediction", "--no-reduce", "-o"])
        .arg(dir.join("out"))
        .arg("--cache-dir")
        .arg(dir.join("cache"))
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn an_uncalibrated_or_broken_model_is_e0901() {
    let dir = tempfile::tempdir().unwrap();
    for (text, says) in [
        ("null\n", "no calibration"),
        ("{\"format\": 1}", "not a cost model"),
    ] {
        let model = dir.path().join("model.json");
        std::fs::write(&model, text).unwrap();
        let out = build(dir.path(), &["--cost-model", model.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains("E0901") && err.contains(says), "{err}");
        assert!(!dir.path().join("out/prediction.json").exists());
    }
}

#[test]
fn the_shipped_model_predicts_flowmage_3nf_from_callgrind_costs() {
    if Command::new("valgrind").arg("--version").output().is_err() {
        eprintln!("SKIPPED: valgrind missing (`cargo xtask setup` installs it)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = build(dir.path(), &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let p: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("out/prediction.json")).unwrap(),
    )
    .unwrap();
    let model: serde_json::Value = serde_json::from_str(nfc::prediction::SHIPPED_MODEL).unwrap();
    assert!(p["throughput_mpps"].as_f64().unwrap() > 0.0, "{p}");
    // Delivered never exceeds the capacity the cost model gives.
    assert!(p["capacity_mpps"].as_f64().unwrap() >= p["throughput_mpps"].as_f64().unwrap());
    assert_eq!(p["error"], model["error"]);
    // The shipped model is calibrated against machine probes: the stage
    // probed this machine and scaled the prediction to it.
    let machine = &p["machine"];
    assert_eq!(
        machine["reference_ns_per_unit"], model["probe_reference"],
        "{p}"
    );
    let (probe, reference, scale) = (
        machine["probe_ns_per_unit"].as_f64().unwrap(),
        machine["reference_ns_per_unit"].as_f64().unwrap(),
        machine["scale"].as_f64().unwrap(),
    );
    let gamma = model["load_exponent"].as_f64().unwrap();
    assert!(
        probe > 0.0 && (scale - (probe / reference).powf(gamma)).abs() < 1e-9,
        "{p}"
    );
    assert!(p["data"].as_str().unwrap().contains("flowmage-3nf"), "{p}");
    let nfs: Vec<&str> = p["features"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f[0].as_str().unwrap())
        .collect();
    assert_eq!(nfs, ["psd", "policer", "counter"]);
    assert!(nfs.contains(&p["bottleneck"].as_str().unwrap()));
    // Every NF ran real code: instructions per packet, deterministic.
    for f in p["features"].as_array().unwrap() {
        let instr = f[1][0][1].as_f64().unwrap();
        assert!(instr > 10.0 && instr < 10_000.0, "{f}");
    }
}

fn chain(dir: &Path, yaml: &str) -> nfc_core::chain::ChainSpec {
    let path = dir.join("chain.yaml");
    std::fs::write(&path, yaml).unwrap();
    nfc::driver::load_chain(&path).unwrap().0
}

/// A prediction of `mpps` as the cost model would give it (no cap yet).
fn capacity(mpps: f64) -> nfc_core::prediction::Prediction {
    nfc_core::prediction::Prediction {
        throughput_mpps: mpps,
        latency_us: 1.0,
        model: "test".into(),
        bottleneck: Some("most-instructions".into()),
        error: Some(0.1),
        data: None,
        features: vec![],
        capacity_mpps: None,
        cap: None,
        machine: None,
    }
}

#[test]
fn a_rate_limiting_nf_caps_the_prediction_at_its_configured_rate() {
    let dir = tempfile::tempdir().unwrap();
    let ws = nfc::driver::Workspace::new(dir.path().join("cache"));
    // Every packet to one of 2 destinations, 64 bytes: a policer at R
    // bytes/s per destination lets through 2·R/64 packets per second
    // whatever is offered above that. Two rates, so the cap must follow
    // the configuration.
    for (rate, offered) in [(64_000u64, 20_000.0), (160_000, 50_000.0)] {
        let c = chain(
            dir.path(),
            &format!(
                "name: capped\nnfs:\n  - id: pol\n    nf: policer\n    config: {{rate: {rate}, burst: 6400}}\nchain: [pol]\ntraffic:\n  synthetic: {{flows: 64, packets: 2000, zipf: 0.0, sizes: 64, dst_hosts: 2, seed: 3}}\n"
            ),
        );
        let r = nfc::prediction::replay_at_rate(&c, &ws, offered).unwrap();
        let want = 2.0 * rate as f64 / 64.0;
        let delivered = offered * r.pass_fraction;
        assert!(
            (delivered - want).abs() / want < 0.02,
            "rate {rate}: delivered {delivered:.0} pps, want {want:.0}: {r:?}"
        );
        assert_eq!(r.bottleneck().as_deref(), Some("pol"), "{r:?}");
        // Offered less than the limit, nothing is dropped.
        let low = nfc::prediction::replay_at_rate(&c, &ws, want * 0.4).unwrap();
        assert_eq!(low.pass_fraction, 1.0, "{low:?}");
        let p = nfc::prediction::apply_cap(capacity(offered / 1e6), &r, Some(&low));
        let cap = p.cap.as_ref().expect("capped");
        assert!(
            cap.rate_limited && cap.pass_fraction_low == Some(1.0),
            "{cap:?}"
        );
        assert!(
            (p.throughput_mpps * 1e6 - want).abs() / want < 0.02,
            "{p:?}"
        );
        assert_eq!(p.capacity_mpps, Some(offered / 1e6));
        assert_eq!(p.bottleneck.as_deref(), Some("pol"));
        assert_eq!(cap.drops[0].0, "pol");
        assert!(cap.source.contains("replayed at"), "{}", cap.source);
        // ... so at that rate there is no cap.
        let p = nfc::prediction::apply_cap(capacity(want * 0.4 / 1e6), &low, None);
        assert!(p.cap.is_none() && p.throughput_mpps == want * 0.4 / 1e6);
    }
}

#[test]
fn a_chain_without_a_rate_limit_keeps_its_capacity() {
    let dir = tempfile::tempdir().unwrap();
    let ws = nfc::driver::Workspace::new(dir.path().join("cache"));
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (c, _) =
        nfc::driver::load_chain(&root.join("benches/flash-cost-chains/cal-fw-lb-mon.yaml"))
            .unwrap();
    let r = nfc::prediction::replay_at_rate(&c, &ws, 200_000.0).unwrap();
    assert_eq!(r.measured_packets, 200_000);
    assert_eq!(r.exited, r.measured_packets, "{r:?}");
    assert!(r.drops.iter().all(|(_, d)| *d == 0), "{r:?}");
    let p = nfc::prediction::apply_cap(capacity(0.2), &r, None);
    assert_eq!(p.throughput_mpps, 0.2);
    assert!(p.cap.is_none());
    assert_eq!(p.bottleneck.as_deref(), Some("most-instructions"));
}
