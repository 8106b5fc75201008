//! Analyse NF sources from the command line and print the facts as JSON:
//! `cargo run -p nfc-analyzer --example analyze -- [-I dir]... [--budget-secs N] <dir-or-files>...`
//! (a larger time budget lets the analysis finish under valgrind, whose
//! instruction counts are the deterministic speed measure on a noisy VM).

use nfc_analyzer::{analyze, input_from_paths, AnalyzeOptions};
use std::path::PathBuf;

fn main() {
    let mut paths: Vec<PathBuf> = vec![];
    let mut include_dirs: Vec<PathBuf> = vec![];
    let mut budget = nfc_analyzer::Budget::default();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "-I" {
            include_dirs.extend(args.next().map(PathBuf::from));
        } else if a == "--budget-secs" {
            match args.next().and_then(|s| s.parse().ok()) {
                Some(secs) => budget.time = std::time::Duration::from_secs(secs),
                None => {
                    eprintln!("error: --budget-secs takes a whole number of seconds");
                    std::process::exit(1);
                }
            }
        } else {
            paths.push(PathBuf::from(a));
        }
    }
    let input = match input_from_paths(None, &paths) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    let opts = AnalyzeOptions {
        include_dirs,
        budget,
        ..AnalyzeOptions::default()
    };
    let t0 = std::time::Instant::now();
    match analyze(&input, &opts) {
        Ok((facts, diags)) => {
            for d in &diags {
                eprintln!("{d}");
            }
            eprintln!("analysed in {:?}", t0.elapsed());
            println!(
                "{}",
                serde_json::to_string_pretty(&facts).unwrap_or_default()
            );
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
