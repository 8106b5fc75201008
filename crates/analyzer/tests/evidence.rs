//! Snapshots of the evidence behind the answers for two corpus NFs (file
//! paths reduced to file names). Update with `cargo insta review` (or
//! `INSTA_UPDATE=always cargo test -p nfc-analyzer --test evidence`).

use nfc_analyzer::{analyze, input_from_paths, AnalyzeOptions};
use std::path::Path;

fn evidence(name: &str) -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus")
        .join(name);
    let input = input_from_paths(None, &[dir]).unwrap();
    let (facts, _) = analyze(&input, &AnalyzeOptions::default()).unwrap();
    facts
        .evidence
        .iter()
        .map(|e| {
            let file = Path::new(&e.file)
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default();
            format!(
                "{:?} {}:{}-{}: {}",
                e.question, file, e.line_start, e.line_end, e.reason
            )
        })
        .collect()
}

#[test]
fn evidence_of_index_linked_mac_meter() {
    insta::assert_yaml_snapshot!(evidence("c_mac_meter_list"));
}

#[test]
fn evidence_of_click_nat_with_reversed_flow_ids() {
    insta::assert_yaml_snapshot!(evidence("click_tiny_nat"));
}
