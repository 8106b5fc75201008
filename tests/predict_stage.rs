//! The predict stage of `nfc build` (`--emit prediction`): without a
//! calibrated model it answers E0901 (exit 1) before measuring anything;
//! with the shipped model it measures every NF of flowmage-3nf under
//! callgrind and writes a prediction that names its model, data, error,
//! bottleneck and per-NF features (skipped loudly without valgrind).

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
    assert_eq!(p["error"], model["error"]);
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
