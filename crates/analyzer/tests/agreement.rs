//! Acceptance: the static analyzer must agree with every hand-labelled NF —
//! the NF library's `facts.yaml` files (`nfs/*/`, `nfs/click/*/`) and this
//! crate's own corpus of third-party-style NFs (`tests/corpus/*/expected.yaml`,
//! written before the analyzer was run on them). Prints the agreement table
//! per question and per-NF analysis time; fails on any disagreement.

mod common;

use common::{cases, compare, load_expected};
use nfc_analyzer::{analyze, input_from_paths, AnalyzeOptions};
use std::collections::BTreeMap;
use std::time::Instant;

#[test]
fn static_backend_agrees_with_every_labelled_nf() {
    let cases = cases();
    assert!(
        cases.len() >= 17,
        "expected the corpus plus the NF library, found {}",
        cases.len()
    );
    let mut table: BTreeMap<&'static str, (usize, usize)> = BTreeMap::new();
    let mut failures = vec![];
    let mut times = vec![];
    for (name, dir, exp_path) in &cases {
        let exp = load_expected(exp_path);
        let input = input_from_paths(Some(&exp.nf), std::slice::from_ref(dir)).unwrap();
        let t0 = Instant::now();
        let (facts, _diags) = analyze(&input, &AnalyzeOptions::default()).unwrap();
        times.push((t0.elapsed().as_secs_f64() * 1000.0, name.clone()));
        for v in compare(&exp, &facts) {
            let e = table.entry(v.question).or_default();
            e.1 += 1;
            if v.ok {
                e.0 += 1;
            } else {
                failures.push(format!("{name}: {}: {}", v.question, v.detail));
            }
        }
    }
    eprintln!("agreement over {} NFs:", cases.len());
    for (q, (ok, n)) in &table {
        eprintln!("  {q:<18} {ok}/{n}");
    }
    times.sort_by(|a, b| a.0.total_cmp(&b.0));
    let median = times[times.len() / 2].0;
    eprintln!(
        "analysis time (debug build): median {median:.1} ms, max {:.1} ms ({})",
        times.last().unwrap().0,
        times.last().unwrap().1
    );
    assert!(
        failures.is_empty(),
        "disagreements:\n{}",
        failures.join("\n")
    );
}
