//! `nfc smartnic …` and `nfc build --target agilio`: the evaluation contract
//! on a small Clara-format subset (train on some NFs, evaluate on others),
//! located errors on bad data, and the Agilio plan and header.

use insta_cmd::get_cargo_bin;
use std::path::{Path, PathBuf};
use std::process::Command;

fn nfc() -> Command {
    let mut c = Command::new(get_cargo_bin("nfc"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

fn clara() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/clara");
    assert!(
        root.is_dir(),
        "Clara's data is expected at {} (shared/ beside the repository)",
        root.display()
    );
    root
}

/// Copy the file pairs with ids in `ids` from `from` into `to`.
fn copy_pairs(from: &Path, to: &Path, ids: impl Iterator<Item = u64>) {
    std::fs::create_dir_all(to).unwrap();
    for i in ids {
        for kind in ["feature", "tag"] {
            let name = format!("trainingset_{kind}_{i}");
            std::fs::copy(from.join(&name), to.join(&name)).unwrap();
        }
    }
}

/// Run `cmd`, which must fail on bad input (exit 1); its stderr.
fn bad_input(cmd: &mut Command) -> String {
    let o = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    stderr
}

fn json(out: &std::process::Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn scale_out_and_colocation_contract_on_held_out_data() {
    let tmp = tempfile::tempdir().unwrap();
    let (train, eval) = (tmp.path().join("train"), tmp.path().join("eval"));
    let so = clara().join("scale_out");
    // Training: NFs 0..120 of each workload; evaluation: 10 other hit NFs.
    copy_pairs(
        &so.join("dataset_hit"),
        &train.join("scale_out/dataset_hit"),
        0..120,
    );
    copy_pairs(
        &so.join("dataset_miss"),
        &train.join("scale_out/dataset_miss"),
        0..120,
    );
    copy_pairs(&so.join("dataset_hit"), &eval.join("so"), 500..510);
    let co = clara().join("nf_colocation/dataset");
    copy_pairs(&co, &train.join("nf_colocation/dataset"), 0..100);
    copy_pairs(&co, &eval.join("co"), 300..320);

    let model = tmp.path().join("scale_out.json");
    let t = json(
        &nfc()
            .args(["--format", "json", "smartnic", "train-scale-out", "-o"])
            .arg(&model)
            .arg("--train")
            .arg(&train)
            .output()
            .unwrap(),
    );
    assert_eq!(t["model"], model.display().to_string());
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap();
    assert_eq!(saved["seed"], 20);
    assert_eq!(saved["features"].as_array().unwrap().len(), 74);

    let with_model = json(
        &nfc()
            .args(["--format", "json", "smartnic", "eval-scale-out", "--data"])
            .arg(eval.join("so"))
            .arg("--model")
            .arg(&model)
            .output()
            .unwrap(),
    );
    let trained = json(
        &nfc()
            .args(["--format", "json", "smartnic", "eval-scale-out", "--data"])
            .arg(eval.join("so"))
            .arg("--train")
            .arg(&train)
            .output()
            .unwrap(),
    );
    // The saved model and training afresh (same data, same seed) agree NF by NF.
    assert_eq!(with_model["nfs"], trained["nfs"]);
    let nfs = with_model["nfs"].as_array().unwrap();
    assert_eq!(nfs.len(), 10);
    let mut sum = 0.0;
    for nf in nfs {
        for key in ["suggested_cores", "best_cores"] {
            let c = nf[key].as_u64().unwrap();
            assert!((4..=10).contains(&c), "{nf}");
        }
        let loss = nf["throughput_loss"].as_f64().unwrap();
        assert!(loss.is_finite() && loss < 1.0, "{nf}");
        sum += loss;
    }
    assert!((with_model["mean_throughput_loss"].as_f64().unwrap() - sum / 10.0).abs() < 1e-12);
    assert_eq!(trained["model"]["origin"]["excluded_overlapping_nfs"], 0);

    let c = json(
        &nfc()
            .args(["--format", "json", "smartnic", "eval-colocation", "--data"])
            .arg(eval.join("co"))
            .arg("--train")
            .arg(&train)
            .output()
            .unwrap(),
    );
    assert_eq!(c["groups"], 20);
    let (top1, top3) = (c["top1"].as_f64().unwrap(), c["top3"].as_f64().unwrap());
    assert!(
        (0.0..=1.0).contains(&top1) && top1 <= top3 && top3 <= 1.0,
        "{c}"
    );
    assert_eq!(c["model"]["origin"]["trained_groups"], 100);

    // Evaluating the training data itself: every overlapping program is left out of
    // training, which leaves nothing to train on.
    let stderr = bad_input(
        nfc()
            .args(["smartnic", "eval-colocation", "--data"])
            .arg(train.join("nf_colocation/dataset"))
            .arg("--train")
            .arg(&train),
    );
    assert!(
        stderr.contains("E0802") && stderr.contains("nothing is left to train on"),
        "{stderr}"
    );
}

#[test]
fn bad_clara_data_is_a_located_error() {
    let eval_without_model = |d: &Path| {
        bad_input(
            nfc()
                .args([
                    "smartnic",
                    "eval-scale-out",
                    "--model",
                    "/nonexistent",
                    "--data",
                ])
                .arg(d),
        )
    };
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("so");
    copy_pairs(&clara().join("scale_out/dataset_hit"), &d, 0..2);
    let tag = d.join("trainingset_tag_1");
    let text = std::fs::read_to_string(&tag)
        .unwrap()
        .replacen("throughput: ", "throughput: x", 1);
    std::fs::write(&tag, text).unwrap();
    let stderr = eval_without_model(&d);
    assert!(
        stderr.contains("E0800")
            && stderr.contains("trainingset_tag_1:2:1")
            && stderr.contains("`throughput` is not a number"),
        "{stderr}"
    );
    // A feature file without its tag file.
    std::fs::remove_file(&tag).unwrap();
    let stderr = eval_without_model(&d);
    assert!(stderr.contains("no matching trainingset_tag_1"), "{stderr}");
    // A model file that is not one.
    copy_pairs(&clara().join("scale_out/dataset_hit"), &d, 1..2);
    let bogus = tmp.path().join("bogus.json");
    std::fs::write(&bogus, "{}").unwrap();
    let stderr = bad_input(
        nfc()
            .args(["smartnic", "eval-scale-out", "--model"])
            .arg(&bogus)
            .arg("--data")
            .arg(&d),
    );
    assert!(
        stderr.contains("E0801") && stderr.contains("not a scale-out model"),
        "{stderr}"
    );
}

/// `nfc build --target agilio`: the plan and the Micro-C header, snapshotted.
#[test]
fn agilio_target_writes_plan_and_header() {
    let tmp = tempfile::tempdir().unwrap();
    let out = nfc()
        .args([
            "build",
            "examples/flowmage-3nf.yaml",
            "--target",
            "agilio",
            "--plan-proof",
            "off",
            "-o",
        ])
        .arg(tmp.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let header = std::fs::read_to_string(tmp.path().join("agilio_placement.h")).unwrap();
    insta::assert_snapshot!("agilio_flowmage_3nf_header", header);
    let plan: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(tmp.path().join("agilio-plan.json")).unwrap(),
    )
    .unwrap();
    insta::assert_json_snapshot!("agilio_flowmage_3nf_plan", plan);
    // Every state object is placed in a level, and the placement is no worse than all-EMEM.
    assert!(plan["placement_cost"].as_f64().unwrap() <= plan["all_emem_cost"].as_f64().unwrap());
}

/// `nfc explain --smartnic`: the SmartNIC decisions for people, snapshotted
/// (the section after the pipeline's own), and in JSON under `smartnic`.
#[test]
fn explain_shows_the_smartnic_decisions() {
    let tmp = tempfile::tempdir().unwrap();
    let out = nfc()
        .args([
            "explain",
            "examples/flowmage-3nf.yaml",
            "--smartnic",
            "--plan-proof",
            "off",
            "--cache-dir",
        ])
        .arg(tmp.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let section = stdout
        .split("== smartnic: the agilio target's decisions\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no smartnic section in {stdout}"));
    insta::assert_snapshot!("explain_smartnic_flowmage_3nf", section);
    let out = nfc()
        .args([
            "explain",
            "examples/flowmage-3nf.yaml",
            "--smartnic",
            "--plan-proof",
            "off",
            "--format",
            "json",
            "--cache-dir",
        ])
        .arg(tmp.path())
        .output()
        .unwrap();
    let v = json(&out);
    let nfs = v["smartnic"]["nfs"].as_array().unwrap();
    assert_eq!(nfs.len(), 3);
    for nf in nfs {
        for st in nf["state"].as_array().unwrap() {
            assert_eq!(st["frequency_source"], "measured", "{st}");
        }
    }
}
