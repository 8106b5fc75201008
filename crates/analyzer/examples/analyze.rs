//! Analyse NF sources from the command line and print the facts as JSON:
//! `cargo run -p nfc-analyzer --example analyze -- <dir-or-files>...`.

use nfc_analyzer::{analyze, input_from_paths, AnalyzeOptions};
use std::path::PathBuf;

fn main() {
    let paths: Vec<PathBuf> = std::env::args().skip(1).map(PathBuf::from).collect();
    let input = match input_from_paths(None, &paths) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    match analyze(&input, &AnalyzeOptions::default()) {
        Ok((facts, diags)) => {
            for d in &diags {
                eprintln!("{d}");
            }
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
