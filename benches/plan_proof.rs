//! Plan-proof time per example chain (release): analyze and place each
//! chain in examples/ for 2 and 4 cores, then time the proof
//! (`prove_and_repair`: the proof traffic, the reference and planned runs,
//! any repair). NF objects are built (and cached) before timing. Prints a
//! table, then one JSON line for `cargo xtask bench`.

use nfc::driver::{self, Workspace};
use nfc::plan_proof::{prove_and_repair, ProofOptions, Verdict};
use std::path::Path;
use std::time::Instant;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let ws = Workspace::new(root.join("target").join("nfc-bench").join("plan-proof-ws"));
    let mut files: Vec<_> = std::fs::read_dir(root.join("examples"))
        .expect("examples/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    let opts = ProofOptions::default();
    let mut rows = vec![];
    println!(
        "{:<18} {:>7} {:>9} {:>9} {:>10} {:>8}  verdict",
        "chain", "workers", "packets", "replies", "split NFs", "proof ms"
    );
    for file in &files {
        let (mut chain, _) = driver::load_chain(file).expect("example chain loads");
        for cores in [2u32, 4] {
            chain.resources.cores = cores;
            let (facts, _) =
                driver::analyze_chain(&chain, &driver::AnalyzeOptions::default()).expect("analyze");
            let traffic = driver::traffic_profile(&chain).expect("traffic");
            let (plan, _) =
                driver::place_chain(&chain, &facts, &traffic, &driver::PlaceOptions::default())
                    .expect("place");
            driver::build_objects(&chain, &ws).expect("NFs build");
            let t = Instant::now();
            let (_, _, summary) =
                prove_and_repair(&chain, &facts, plan, &ws, &opts).expect("proof runs");
            let ms = t.elapsed().as_secs_f64() * 1e3;
            let last = summary.runs.last().expect("a proof run");
            let verdict = match &last.verdict {
                Verdict::Proven => "proven".to_string(),
                Verdict::Trivial { reason } => format!("trivial ({reason})"),
                Verdict::Rejected(_) => "REJECTED".to_string(),
            };
            let packets: u64 = summary.runs.iter().map(|r| r.packets).sum();
            let replies: u64 = summary.runs.iter().map(|r| r.replies).sum();
            println!(
                "{:<18} {:>7} {:>9} {:>9} {:>10} {:>8.0}  {verdict}{}",
                chain.name,
                cores,
                packets,
                replies,
                last.split.len(),
                ms,
                if summary.pinned_shared.is_empty() {
                    String::new()
                } else {
                    format!(" after pinning {}", summary.pinned_shared.join(", "))
                }
            );
            rows.push(serde_json::json!({
                "chain": chain.name,
                "workers": cores,
                "packets": packets,
                "replies": replies,
                "proof_runs": summary.runs.len(),
                "split_nfs": last.split,
                "proof_ms": ms,
                "verdict": verdict,
                "pinned_shared": summary.pinned_shared,
            }));
        }
    }
    println!("{}", serde_json::json!({ "plan_proof": rows }));
}
