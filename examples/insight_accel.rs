//! Accelerator identification bench (issue 19): train the CRC/LPM
//! classifier on nfc's implementation corpus, score it on held-out
//! implementations and on real DPDK code from `$NFC_CORPUS_DIR`, flag the
//! built-in NFs' functions, and save the model.
//! `cargo run --release --example insight_accel -- <out dir> [model path]`
use nfc_smartnic::accel::{evaluate, AccelKind, AccelModel, Labelled, MiningConfig};
use std::path::PathBuf;

fn own(u: &nfc_core::insight::IrUnit) -> Vec<&nfc_core::insight::IrFunction> {
    u.functions.iter().filter(|f| !f.framework).collect()
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let out = PathBuf::from(args.first().map(String::as_str).unwrap_or("target/nfc-bench/insight"));
    std::fs::create_dir_all(&out)?;
    let corpus_dir = std::env::var_os("NFC_CORPUS_DIR").map(PathBuf::from);
    let c = nfc::insight::accel_corpus(corpus_dir.as_deref());
    for f in &c.failures {
        eprintln!("failed to lower: {f}");
    }
    let train: Vec<Labelled<'_>> = c
        .train
        .iter()
        .flat_map(|(_, k, u)| own(u).into_iter().map(move |f| Labelled { function: f, kind: *k }))
        .collect();
    // Plentiful "none" examples: synthesised NF-like programs (header
    // parsing, tables, counters, checksum-like folds), training only.
    let synth = nfc::insight::synthesise(&nfc_smartnic::synth::Profile::nf_like(), 80, 7_000_000, 2);
    let mut train = train;
    for u in &synth.units {
        train.extend(own(u).into_iter().map(|f| Labelled { function: f, kind: AccelKind::None }));
    }
    let model = AccelModel::train(&train, &MiningConfig::default(), 0.01, 19);
    let mut test: Vec<(String, Labelled<'_>)> = c
        .test
        .iter()
        .flat_map(|(s, k, u)| own(u).into_iter().map(move |f| (format!("{s}::{}", f.name), Labelled { function: f, kind: *k })))
        .collect();
    let mut real: Vec<(String, Labelled<'_>)> = vec![];
    for (file, u, labels) in &c.real {
        for (name, kind) in labels {
            if let Some(f) = u.functions.iter().find(|f| &f.name == name) {
                real.push((format!("{file}::{name}"), Labelled { function: f, kind: *kind }));
            }
        }
    }
    let own_eval = evaluate(&model, &test);
    test.extend(real.iter().cloned());
    let all_eval = evaluate(&model, &test);
    let real_eval = evaluate(&model, &real);
    // Built-in NFs: nothing is labelled; report what is flagged.
    let nfs = nfc::insight::builtin_nfs(&PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/nfs")));
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
            s.push_str(&format!("| {} | {} | {} | {} |\n", k.name(), e.confusion[i][0], e.confusion[i][1], e.confusion[i][2]));
        }
        s
    };
    println!("train functions: {}, held-out own: {}, held-out real: {}", train.len(), own_eval.rows.len(), real_eval.rows.len());
    println!("held-out (own + real): precision {:.3} recall {:.3}\n{}", all_eval.precision, all_eval.recall, table(&all_eval));
    for (n, a, p, conf) in &all_eval.rows {
        if a != p {
            println!("  miss: {n}: actual {} predicted {} ({conf:.2})", a.name(), p.name());
        }
    }
    println!("built-in NF functions flagged: {}", flagged.len());
    for f in &flagged {
        println!("  {f}");
    }
    let body = serde_json::json!({
        "train_functions": train.len(),
        "patterns": model.patterns.len(),
        "heldout_own": own_eval,
        "heldout_real": real_eval,
        "heldout_all": all_eval,
        "nf_flagged": flagged,
        "failures": c.failures,
    });
    std::fs::write(out.join("accel.json"), serde_json::to_vec_pretty(&body)?)?;
    std::fs::write(out.join("accel.md"), format!("precision {:.3}, recall {:.3}\n\n{}", all_eval.precision, all_eval.recall, table(&all_eval)))?;
    if let Some(p) = args.get(1) {
        std::fs::write(p, serde_json::to_vec_pretty(&model)?)?;
    }
    Ok(())
}
