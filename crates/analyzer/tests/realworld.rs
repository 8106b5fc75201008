//! The analyzer on third-party NF code (the real-world corpus, labelled by
//! hand before analysis; `tests/realworld/labels.yaml`). This test holds the
//! safety line: no answer may let the placer split state the label says is
//! one (stateless for a stateful unit, a flow key broader than the label's,
//! "splittable" for an unsplittable unit). Accuracy per question and per code
//! base, with every miss, is the bench's report (`cargo xtask bench analyzer`).
//!
//! The code is fetched by `cargo xtask setup --corpus` (`cargo xtask test`
//! does it); without it the test says SKIPPED loudly.

#[path = "realworld/score.rs"]
mod score;

use score::{analyze_unit, corpus_dir, load_units, score, Report};

#[test]
fn labels_cover_at_least_40_units_from_4_code_bases() {
    let units = load_units();
    let bases: std::collections::BTreeSet<&str> =
        units.iter().map(|u| u.codebase.as_str()).collect();
    assert!(units.len() >= 40, "{} units", units.len());
    assert!(bases.len() >= 4, "{bases:?}");
    let mut ids: Vec<&str> = units.iter().map(|u| u.id.as_str()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), units.len(), "unit ids are unique");
    for u in &units {
        assert!(!u.stateful || u.flow_key.is_some(), "{}: stateful needs a flow_key label", u.id);
    }
}

#[test]
fn no_answer_on_real_world_code_is_unsafe_for_placement() {
    let Some(corpus) = corpus_dir() else {
        eprintln!("SKIPPED: real-world corpus not fetched (run `cargo xtask setup --corpus`)");
        return;
    };
    let units = load_units();
    let mut report = Report::default();
    for u in &units {
        let (facts, _) = analyze_unit(&corpus, u);
        report.add(u, &score(u, &facts));
    }
    eprintln!("{}", report.table());
    assert!(
        report.unsafe_answers.is_empty(),
        "unsafe answers on real-world code:\n{}",
        report.unsafe_answers.join("\n")
    );
}
