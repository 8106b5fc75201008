//! The SmartNIC insight bench (issue 19, `cargo xtask bench insight`):
//! synthesise NF-like and naive programs and lower them with the built-in
//! NFs for the proxy target (riscv32, llc-19 -O2); Table 1's similarity
//! metrics; the LSTM vs DNN vs CNN vs GBDT comparison by WMAPE per held-out
//! NF (trained by `nfc-predict insight train`, the only binary with
//! libtorch); the CRC/LPM accelerator classifier on held-out
//! implementations. Writes `target/nfc-bench/insight/report.md` and
//! `report.json`; prints the markdown and, last, one line of JSON.
//! `cargo run --release --example insight_bench -- [programs] [epochs]`
use nfc_smartnic::accel::{evaluate, AccelKind, Labelled};
use nfc_smartnic::similarity::{compare, opcode_distribution};
use nfc_smartnic::synth::Profile;
use std::path::{Path, PathBuf};
use std::process::Command;

fn own(u: &nfc_core::insight::IrUnit) -> Vec<&nfc_core::insight::IrFunction> {
    u.functions.iter().filter(|f| !f.framework).collect()
}

fn dataset(out: &Path, n: usize) -> anyhow::Result<serde_json::Value> {
    let t0 = std::time::Instant::now();
    let train = nfc::insight::synthesise(&Profile::nf_like(), n, 1, 2);
    let naive = nfc::insight::synthesise(&Profile::naive(), n / 3, 1_000_000, 2);
    let nfs_dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/nfs"));
    let held = nfc::insight::builtin_nfs(&nfs_dir);
    eprintln!(
        "lowered {} nf-like ({} failed), {} naive ({} failed), {} held-out NFs ({} failed) in {:.1}s",
        train.units.len(), train.failures.len(), naive.units.len(), naive.failures.len(),
        held.units.len(), held.failures.len(), t0.elapsed().as_secs_f64()
    );
    for f in train.failures.iter().chain(&naive.failures).take(3) {
        eprintln!("  failure: {f}");
    }
    let dist = |units: &[nfc_core::insight::IrUnit]| {
        opcode_distribution(
            units
                .iter()
                .flat_map(|u| u.functions.iter().filter(|f| !f.framework))
                .flat_map(|f| f.words()),
        )
    };
    let real = dist(&held.units);
    let sim = serde_json::json!({
        "nf_like": compare(&real, &dist(&train.units)),
        "naive": compare(&real, &dist(&naive.units)),
        "real_programs": held.units.len(),
        "nf_like_programs": train.units.len(),
        "naive_programs": naive.units.len(),
        "failures": { "nf_like": train.failures, "naive": naive.failures, "heldout": held.failures },
    });
    std::fs::write(out.join("train.json"), serde_json::to_vec(&train.units)?)?;
    std::fs::write(out.join("naive.json"), serde_json::to_vec(&naive.units)?)?;
    std::fs::write(out.join("heldout.json"), serde_json::to_vec(&held.units)?)?;
    std::fs::write(
        out.join("similarity.json"),
        serde_json::to_vec_pretty(&sim)?,
    )?;
    Ok(sim)
}

fn accel(out: &Path) -> anyhow::Result<(serde_json::Value, String)> {
    let corpus_dir = Some(
        std::env::var_os("NFC_CORPUS_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("/var/tmp/nfc-corpus")),
    );
    let c = nfc::insight::accel_corpus(corpus_dir.as_deref());
    for f in &c.failures {
        eprintln!("failed to lower: {f}");
    }
    let negatives = nfc::insight::accel_negatives(80);
    let model = nfc::insight::train_accel_model(&c, &negatives);
    let train_functions = c.train.iter().map(|(_, _, u)| own(u).len()).sum::<usize>() + 0;

    let mut test: Vec<(String, Labelled<'_>)> = c
        .test
        .iter()
        .flat_map(|(s, k, u)| {
            own(u).into_iter().map(move |f| {
                (
                    format!("{s}::{}", f.name),
                    Labelled {
                        function: f,
                        kind: *k,
                    },
                )
            })
        })
        .collect();
    let mut real: Vec<(String, Labelled<'_>)> = vec![];
    for (file, u, labels) in &c.real {
        for (name, kind) in labels {
            if let Some(f) = u.functions.iter().find(|f| &f.name == name) {
                real.push((
                    format!("{file}::{name}"),
                    Labelled {
                        function: f,
                        kind: *kind,
                    },
                ));
            }
        }
    }
    let own_eval = evaluate(&model, &test);
    test.extend(real.iter().cloned());
    let all_eval = evaluate(&model, &test);
    let real_eval = evaluate(&model, &real);
    // Built-in NFs: nothing is labelled; report what is flagged.
    let nfs =
        nfc::insight::builtin_nfs(&PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/nfs")));
    let mut flagged = vec![];
    for u in &nfs.units {
        for f in u.functions.iter().filter(|f| !f.framework) {
            let v = model.classify(f);
            if v.kind != AccelKind::None {
                flagged.push(serde_json::json!({"nf": u.name, "function": f.name, "kind": v.kind, "confidence": v.confidence}));
            }
        }
    }
    let table = |e: &nfc_smartnic::accel::AccelEvaluation| {
        let mut s = String::from("| actual \\ predicted | crc | lpm | none |\n|---|---|---|---|\n");
        for (i, k) in AccelKind::ALL.iter().enumerate() {
            s.push_str(&format!(
                "| {} | {} | {} | {} |\n",
                k.name(),
                e.confusion[i][0],
                e.confusion[i][1],
                e.confusion[i][2]
            ));
        }
        s
    };
    let mut misses = format!("{} training functions ({} mined patterns), {} held-out own and {} held-out real (DPDK) functions.\n\nMisclassified held-out functions:\n\n", train_functions, model.patterns.len(), own_eval.rows.len(), real_eval.rows.len());
    for (n, a, p, conf) in &all_eval.rows {
        if a != p {
            misses.push_str(&format!(
                "- `{n}`: actual {}, predicted {} (confidence {conf:.2})\n",
                a.name(),
                p.name()
            ));
        }
    }
    misses.push_str(&format!(
        "\nBuilt-in NF functions flagged (unlabelled; for inspection): {}\n",
        flagged.len()
    ));
    for f in &flagged {
        misses.push_str(&format!("- {f}\n"));
    }
    let body = serde_json::json!({
        "train_functions": train_functions,
        "patterns": model.patterns.len(),
        "heldout_own": own_eval,
        "heldout_real": real_eval,
        "heldout_all": all_eval,
        "nf_flagged": flagged,
        "failures": c.failures,
    });
    std::fs::write(out.join("accel.json"), serde_json::to_vec_pretty(&body)?)?;
    std::fs::write(
        out.join("accel-model.json"),
        serde_json::to_vec_pretty(&model)?,
    )?;
    Ok((
        body,
        format!(
            "precision {:.3}, recall {:.3} (held-out own + real implementations)\n\n{}",
            all_eval.precision,
            all_eval.recall,
            table(&all_eval),
        ) + "\n"
            + &misses,
    ))
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: usize = args.first().map(|s| s.parse()).transpose()?.unwrap_or(400);
    let epochs: usize = args.get(1).map(|s| s.parse()).transpose()?.unwrap_or(10);
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out = root.join("target/nfc-bench/insight");
    std::fs::create_dir_all(&out)?;
    let sim = dataset(&out, n)?;
    let (acc, acc_md) = accel(&out)?;
    // The networks: nfc-predict (libtorch) in its own process.
    let t0 = std::time::Instant::now();
    let status = Command::new("cargo")
        .args([
            "run",
            "--release",
            "-q",
            "-p",
            "nfc-predict",
            "--",
            "--format",
            "json",
            "insight",
            "train",
            "--epochs",
        ])
        .arg(epochs.to_string())
        .arg("--synth")
        .arg(out.join("train.json"))
        .arg("--heldout")
        .arg(out.join("heldout.json"))
        .arg("--out")
        .arg(out.join("models"))
        .current_dir(&root)
        .stdout(std::process::Stdio::null())
        .status()?;
    anyhow::ensure!(status.success(), "nfc-predict insight train failed");
    let eval: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("models/evaluation.json"))?)?;
    let e = &eval["evaluation"];
    let models = ["LSTM", "DNN", "CNN", "GBDT"];
    let mut md = format!("## SmartNIC insight (Clara §3, §4.1) on the proxy ISA (riscv32, llc-19 -O2)\n\n{n} synthesised NF-like programs ({} training / {} validation functions, split by program), {epochs} epochs, vocabulary {} words; held-out: the built-in NFs (never trained on). Training took {:.0} s.\n\n### WMAPE per held-out NF (compute instructions per function)\n\n| NF | functions | proxy instructions | LSTM | DNN | CNN | GBDT | memory IR / proxy |\n|---|---|---|---|---|---|---|---|\n",
        e["train_functions"], e["val_functions"], e["vocabulary"], t0.elapsed().as_secs_f64());
    for r in e["per_nf"].as_array().into_iter().flatten() {
        md.push_str(&format!(
            "| {} | {} | {} |",
            r["nf"].as_str().unwrap_or(""),
            r["functions"],
            r["instructions"]
        ));
        for m in models {
            md.push_str(&format!(
                " {:.1}% |",
                100.0 * r["wmape"][m].as_f64().unwrap_or(f64::NAN)
            ));
        }
        md.push_str(&format!(" {} / {} |\n", r["memory_ir"], r["memory_proxy"]));
    }
    md.push_str("| **overall** | | |");
    for m in models {
        md.push_str(&format!(
            " **{:.1}%** |",
            100.0 * e["overall"][m].as_f64().unwrap_or(f64::NAN)
        ));
    }
    md.push_str(&format!(
        " accuracy {:.1}% |\n\nValidation WMAPE (chosen epoch): {}\n\n",
        100.0 * e["memory_accuracy"].as_f64().unwrap_or(f64::NAN),
        e["validation"]
    ));
    md.push_str("### Generator similarity to the real NFs' IR opcode mix (Table 1; smaller is closer)\n\n| metric | NF-like generator | naive generator |\n|---|---|---|\n");
    for key in [
        "jensen_shannon",
        "renyi2",
        "bhattacharyya",
        "cosine",
        "euclidean",
        "variational",
    ] {
        md.push_str(&format!(
            "| {key} | {:.4} | {:.4} |\n",
            sim["nf_like"][key].as_f64().unwrap_or(f64::NAN),
            sim["naive"][key].as_f64().unwrap_or(f64::NAN)
        ));
    }
    md.push_str(&format!(
        "\n### Accelerator identification (CRC / LPM / none)\n\n{acc_md}\n"
    ));
    let report = serde_json::json!({ "similarity": sim, "compute": eval, "accelerators": acc });
    std::fs::write(out.join("report.md"), &md)?;
    std::fs::write(out.join("report.json"), serde_json::to_vec_pretty(&report)?)?;
    println!("{md}");
    println!(
        "{}",
        serde_json::to_string(&serde_json::json!({
            "wmape_overall": e["overall"], "similarity": sim, "accel_precision": acc["heldout_all"]["precision"], "accel_recall": acc["heldout_all"]["recall"],
        }))?
    );
    Ok(())
}
