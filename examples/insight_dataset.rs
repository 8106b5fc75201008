//! Build the SmartNIC insight dataset (issue 19) for the bench:
//! `cargo run --release --example insight_dataset -- <out dir> [programs]`.
//! Writes `train.json` (nf-like synthesised programs), `naive.json` (the
//! naive generator's), `heldout.json` (built-in NFs) and `similarity.json`
//! (Table 1's metrics, real vs each generator).
use nfc_smartnic::similarity::{compare, opcode_distribution};
use nfc_smartnic::synth::Profile;
use std::path::PathBuf;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let out = PathBuf::from(args.first().map(String::as_str).unwrap_or("target/nfc-bench/insight"));
    let n: usize = args.get(1).map(|s| s.parse()).transpose()?.unwrap_or(600);
    std::fs::create_dir_all(&out)?;
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
        opcode_distribution(units.iter().flat_map(|u| u.functions.iter().filter(|f| !f.framework)).flat_map(|f| f.words()))
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
    std::fs::write(out.join("similarity.json"), serde_json::to_vec_pretty(&sim)?)?;
    println!("{}", serde_json::to_string_pretty(&sim["nf_like"])?);
    println!("{}", serde_json::to_string_pretty(&sim["naive"])?);
    Ok(())
}
