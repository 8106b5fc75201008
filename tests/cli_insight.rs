//! `nfc insight` and `nfc analyze --smartnic` (issue 19): the per-NF report
//! on a small NF with a bitwise CRC, its JSON contract, a located error for
//! an NF that does not compile (exit 1, the other NFs still reported), and
//! the accelerator landing in the facts with evidence.

use insta_cmd::{assert_cmd_snapshot, get_cargo_bin};
use std::process::Command;

fn nfc() -> Command {
    let mut c = Command::new(get_cargo_bin("nfc"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

const CRC_NF: &str = "tests/data/insight/crc_tagger.c";
const BROKEN_NF: &str = "tests/data/insight/broken.c";

#[test]
fn insight_report_with_blocks() {
    assert_cmd_snapshot!(nfc().args(["insight", "--blocks", CRC_NF]));
}

#[test]
fn insight_json_contract_and_packet_path() {
    let o = nfc()
        .args(["--format", "json", "insight", CRC_NF])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let nf = &v[0];
    assert_eq!(nf["nf"], "crc_tagger");
    assert_eq!(nf["entry"], "nf_process");
    let fs = nf["functions"].as_array().unwrap();
    let f = |n: &str| fs.iter().find(|f| f["function"] == n).unwrap();
    // The packet path is nf_process and the CRC it calls; nf_init is off it.
    assert_eq!(f("crc32_bits")["on_packet_path"], true);
    assert_eq!(f("nf_init")["on_packet_path"], false);
    let path_sum: f64 = fs
        .iter()
        .filter(|f| f["on_packet_path"] == true)
        .map(|f| f["compute_instructions"].as_f64().unwrap())
        .sum();
    let total = nf["compute_instructions"].as_f64().unwrap();
    assert!((path_sum - total).abs() < 1e-6 && total > 10.0, "{total}");
    // nf_process stores four bytes into the packet and bumps a counter.
    assert!(f("nf_process")["memory_accesses"].as_u64().unwrap() >= 5);
    assert!(nf["memory_accesses"].as_u64().unwrap() >= 5);
    let acc = nf["accelerators"].as_array().unwrap();
    assert_eq!(acc.len(), 1, "{acc:?}");
    assert_eq!(acc[0]["kind"], "crc");
    assert_eq!(acc[0]["function"], "crc32_bits");
    let c = acc[0]["confidence"].as_f64().unwrap();
    assert!(c > 0.5 && c <= 1.0, "{c}");
    assert_eq!(acc[0]["line"], 25);
    assert!(nf.get("blocks").is_none() && f("nf_process").get("blocks").is_none());
    // Deterministic: the same input gives the same output.
    let again = nfc()
        .args(["--format", "json", "insight", CRC_NF])
        .output()
        .unwrap();
    assert_eq!(o.stdout, again.stdout);
}

#[test]
fn an_nf_that_does_not_compile_is_unknown_with_a_located_error() {
    let o = nfc()
        .args(["--format", "json", "insight", BROKEN_NF, CRC_NF])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("E0810") && err.contains("broken.c:6"), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v[0]["nf"], "broken");
    assert!(v[0]["compute_instructions"].is_null());
    assert!(v[0]["unknown"].as_str().unwrap().contains("no_such_member"));
    // The NF that compiles is still reported.
    assert_eq!(v[1]["nf"], "crc_tagger");
    assert!(v[1]["compute_instructions"].as_f64().unwrap() > 0.0);
    // Human output: the diagnostic points at the line.
    assert_cmd_snapshot!(nfc().args(["insight", BROKEN_NF]));
}

#[test]
fn analyze_smartnic_puts_the_accelerator_into_the_facts_with_evidence() {
    let tmp = tempfile::tempdir().unwrap();
    let o = nfc()
        .args(["--format", "json", "analyze", "--smartnic", "--cache-dir"])
        .arg(tmp.path())
        .arg(CRC_NF)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let f = &v[0];
    assert!(
        f["accelerators"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a == "crc"),
        "{f}"
    );
    let ev = f["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| {
            e["question"] == "accelerator"
                && e["reason"]
                    .as_str()
                    .is_some_and(|r| r.starts_with("IR classifier: `crc32_bits`"))
        })
        .unwrap_or_else(|| panic!("no IR evidence: {f}"));
    assert_eq!(ev["line_start"], 25);
    assert!(ev["file"].as_str().unwrap().ends_with("crc_tagger.c"));
}
