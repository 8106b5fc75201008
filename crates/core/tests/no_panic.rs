//! Property test: no input makes the chain parser panic. Mutates the shipped
//! examples and bad inputs (byte flips, deletions, duplications, splices of
//! YAML punctuation) and parses each mutant; diagnostics are fine, panics are not.

use nfc_core::chain::parse_chain;
mod mutate;

use mutate::{apply, mutation};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

fn corpus() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut out = vec![];
    for dir in ["examples", "tests/bad"] {
        let Ok(rd) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = rd.map(|e| e.unwrap().path()).collect();
        paths.sort();
        for p in paths {
            if let Ok(t) = std::fs::read_to_string(&p) {
                out.push(t);
            }
        }
    }
    assert!(out.len() >= 10, "corpus not found");
    out
}

fn corpus_cached() -> &'static Vec<String> {
    static C: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    C.get_or_init(corpus)
}

const TOKENS: &[&str] = &[
    ":", "-", "[", "]", "{", "}", ",", "\n", "  ", "&a", "*a", "!!str", "'", "\"", "#", "|", "0",
    "-1", "1e400", "nfs", "chain", "edges", "id", "nf", "port", "from", "to", "~", "\t", "\u{0}",
    "é",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 12_000, failure_persistence: None, .. ProptestConfig::default() })]
    #[test]
    fn mutated_chains_never_panic(seed in 0usize..1000, muts in proptest::collection::vec(mutation(), 1..6)) {
        let corpus = corpus_cached();
        let text = apply(&corpus[seed % corpus.len()], &muts, TOKENS);
        let names: Vec<String> = ["port_scan_detector", "policer", "flow_counter", "firewall", "maglev", "l2fwd", "ids", "flow_monitor", "src_ip_counter"].map(String::from).to_vec();
        let (spec, diags) = parse_chain(&text, "mutant.yaml", Path::new("."), &names);
        // Either a spec or at least one error, never neither.
        prop_assert!(spec.is_some() || nfc_core::diag::has_errors(&diags));
        if let Some(spec) = spec {
            let _ = spec.topo_order();
            let _ = spec.dump();
        }
    }
}

/// Click configurations: the repository's .click files and the round-trip
/// examples of the parser's unit tests.
fn click_corpus() -> &'static Vec<String> {
    static C: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    C.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut out: Vec<String> = [
            "crates/placer/tests/data/fig7_input.click",
            "tests/data/operator.click",
        ]
        .iter()
        .map(|p| std::fs::read_to_string(root.join(p)).expect("corpus file"))
        .collect();
        out.extend(
            [
                "x, y :: Counter; x[1] -> [2]y;",
                "FromDevice(eth0, SNIFFER false) -> Print(\"a, (b)\", MAXLENGTH 10) -> Discard;",
                "/* block */ a :: Classifier(12/0800, -); a[1] -> Discard; // tail",
                "elementclass Foo { input -> Counter -> output } f :: Foo;",
            ]
            .map(String::from),
        );
        out
    })
}

const CLICK_TOKENS: &[&str] = &[
    "::",
    "->",
    "[",
    "]",
    "(",
    ")",
    "{",
    "}",
    ";",
    ",",
    "\"",
    "/*",
    "*/",
    "//",
    "\n",
    "$port",
    "elementclass",
    "input",
    "output",
    "-",
    "0",
    "\\",
    "\u{0}",
    "é",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 6_000, failure_persistence: None, .. ProptestConfig::default() })]
    /// No mutant panics the .click parser or printer, and whatever parses
    /// without errors prints to text that parses back to the same
    /// configuration (the FlowMage rewrite relies on print/parse agreeing).
    #[test]
    fn mutated_click_never_panics_and_round_trips(seed in 0usize..1000, muts in proptest::collection::vec(mutation(), 1..6)) {
        let corpus = click_corpus();
        let text = apply(&corpus[seed % corpus.len()], &muts, CLICK_TOKENS);
        let (config, diags) = nfc_core::click::parse(&text, "mutant.click");
        let _ = config.declarations();
        let _ = config.instances();
        if diags.iter().all(|d| !d.is_error()) {
            let printed = nfc_core::click::print(&config);
            let (again, diags2) = nfc_core::click::parse(&printed, "printed.click");
            prop_assert!(diags2.iter().all(|d| !d.is_error()), "{}\n{:?}", printed, diags2);
            prop_assert_eq!(again.without_spans(), config.without_spans(), "{}", printed);
        }
    }
}
