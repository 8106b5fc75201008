//! Property test: no input makes the chain parser panic. Mutates the shipped
//! examples and bad inputs (byte flips, deletions, duplications, splices of
//! YAML punctuation) and parses each mutant; diagnostics are fine, panics are not.

use nfc_core::chain::parse_chain;
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

#[derive(Debug, Clone)]
enum Mutation {
    Flip(usize, u8),
    Delete(usize, usize),
    Insert(usize, usize),
    Duplicate(usize, usize),
    Truncate(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::Flip(i, b)),
        (any::<usize>(), 1usize..40).prop_map(|(i, n)| Mutation::Delete(i, n)),
        (any::<usize>(), 0..TOKENS.len()).prop_map(|(i, t)| Mutation::Insert(i, t)),
        (any::<usize>(), 1usize..80).prop_map(|(i, n)| Mutation::Duplicate(i, n)),
        any::<usize>().prop_map(Mutation::Truncate),
    ]
}

fn apply(text: &str, muts: &[Mutation]) -> String {
    let mut b = text.as_bytes().to_vec();
    for m in muts {
        let len = b.len().max(1);
        match *m {
            Mutation::Flip(i, v) => {
                if !b.is_empty() {
                    b[i % len] = v;
                }
            }
            Mutation::Delete(i, n) => {
                let s = i % len;
                let e = (s + n).min(b.len());
                if s < e {
                    b.drain(s..e);
                }
            }
            Mutation::Insert(i, t) => {
                let at = i % (b.len() + 1);
                b.splice(at..at, TOKENS[t].bytes());
            }
            Mutation::Duplicate(i, n) => {
                let s = i % len;
                let e = (s + n).min(b.len());
                if s < e {
                    let chunk: Vec<u8> = b[s..e].to_vec();
                    b.splice(e..e, chunk);
                }
            }
            Mutation::Truncate(i) => b.truncate(i % len),
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12_000, failure_persistence: None, .. ProptestConfig::default() })]
    #[test]
    fn mutated_chains_never_panic(seed in 0usize..1000, muts in proptest::collection::vec(mutation(), 1..6)) {
        let corpus = corpus_cached();
        let text = apply(&corpus[seed % corpus.len()], &muts);
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
