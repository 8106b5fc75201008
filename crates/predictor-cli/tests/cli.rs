//! `nfc-predict` (what `nfc predict` runs): train on some files, eval on
//! another (the JSON keys an evaluation harness relies on), explain with
//! plots, and located errors with exit 1 for a corrupted CSV and a missing
//! model. The binary runs without LD_LIBRARY_PATH (its rpath finds libtorch).

use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// `nfc-predict`, called as `nfc predict` calls it: the arguments after
/// `predict`, and `--format` passed on.
fn nfc() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_nfc-predict"));
    c.env_remove("LD_LIBRARY_PATH");
    c
}

/// A chain whose throughput falls with lost cycles of one NF (resource
/// stimulus) and follows the offered load; simple xorshift noise.
/// Run `cmd`, which must succeed; its output.
fn succeeds(cmd: &mut Command) -> std::process::Output {
    let o = cmd.output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    o
}

fn write_csv(path: &Path, seed: u64, rows: usize) {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut rnd = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut s = String::from("input_rate,output_rate,latency,fw_cycles,fw_instructions,fw_mem-loads,nat_cycles,nat_LLC-loads\n");
    for _ in 0..rows {
        let load = 500.0 + 1500.0 * rnd();
        let stress = rnd();
        let out = load.min(2100.0 * (1.0 - 0.6 * stress)) * (0.99 + 0.02 * rnd());
        let lat = if out < 0.8 * load {
            15000.0
        } else {
            10.0 + load / 100.0
        };
        s.push_str(&format!(
            "{load:.2},{out:.3},{lat},{:.0},{:.0},0,{:.0},{:.0}\n",
            2.9e9 * (1.0 - 0.6 * stress),
            out * 4e5 * (0.98 + 0.04 * rnd()),
            2.9e9,
            load * 2e3
        ));
    }
    std::fs::write(path, s).unwrap();
}

#[test]
fn train_on_some_files_eval_on_another_gives_the_metric_keys() {
    let d = tempfile::tempdir().unwrap();
    let files: Vec<_> = (0..3)
        .map(|i| d.path().join(format!("exp{i}.csv")))
        .collect();
    for (i, f) in files.iter().enumerate() {
        write_csv(f, i as u64 + 1, 250);
    }
    let model = d.path().join("model");
    succeeds(
        nfc()
            .args([
                "train",
                "--target",
                "throughput",
                "--model",
                "mlp",
                "--grid",
                "tiny",
                "--data",
            ])
            .args(&files[..2])
            .arg("-o")
            .arg(&model),
    );
    assert!(model.join("model.json").exists() && model.join("mlp.safetensors").exists());

    let plots = d.path().join("plots");
    let o = succeeds(
        nfc()
            .args(["--format", "json", "eval", "--model"])
            .arg(&model)
            .arg("--data")
            .arg(&files[2])
            .arg("--plot")
            .arg(&plots),
    );
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let file = &v["files"][0];
    for key in ["accuracy", "mape", "r2", "within_5", "within_10", "n"] {
        assert!(file[key].is_number(), "missing {key} in {file}");
    }
    assert_eq!(file["n"], 250);
    // Held-out experiment of the same chain: the tiny grid still learns it.
    assert!(file["accuracy"].as_f64().unwrap() > 0.85, "{file}");
    assert!(std::fs::read_dir(&plots).unwrap().count() == 1);

    let o = succeeds(
        nfc()
            .args(["explain", "--model"])
            .arg(&model)
            .arg("--data")
            .arg(&files[2])
            .arg("--plot")
            .arg(&plots),
    );
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("permutation importance") && text.contains("Shapley") && text.contains("PCA"),
        "{text}"
    );
    for svg in ["permutation-importance.svg", "shapley.svg", "pca.svg"] {
        let body = std::fs::read_to_string(plots.join(svg)).unwrap();
        assert!(body.starts_with("<svg") && body.contains("</svg>"), "{svg}");
    }
}

#[test]
fn corrupted_csv_and_missing_model_exit_1_with_a_location() {
    let d = tempfile::tempdir().unwrap();
    let bad = d.path().join("bad.csv");
    std::fs::write(
        &bad,
        ",input_rate,output_rate,latency,a_cycles\n0,1,1,1,1\n<<<<<<< HEAD\n1,1,1,1,1\n",
    )
    .unwrap();
    let o = nfc()
        .args(["train", "--target", "throughput", "--model", "linear", "-o"])
        .arg(d.path().join("m"))
        .arg("--data")
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!("{}:3: git merge-conflict marker", bad.display())),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");

    let o = nfc()
        .args(["eval", "--model"])
        .arg(d.path().join("nope"))
        .arg("--data")
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("nope"));
}

/// `insight train` rejects a bad LSTM architecture, clipping value or
/// starting rate before reading any file: exit 2 and the offending option
/// named.
#[test]
fn insight_train_rejects_a_bad_lstm_spec_and_clip() {
    for (flag, value, says) in [
        ("--lstm", "function,sideways", "sideways"),
        ("--lstm", "layers0", "layers0"),
        ("--clip", "nan", "--clip"),
        ("--learning-rate", "0", "--learning-rate"),
        ("--learning-rate", "inf", "--learning-rate"),
    ] {
        let o = nfc()
            .args(["insight", "train", "--synth", "/nonexistent/s.json"])
            .args([
                "--heldout",
                "/nonexistent/h.json",
                "--out",
                "/nonexistent/o",
            ])
            .args([flag, value])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{flag} {value}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(says) && err.contains("error"), "{err}");
    }
}
