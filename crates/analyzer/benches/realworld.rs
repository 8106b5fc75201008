//! `cargo xtask bench analyzer`: the static analyzer on the real-world corpus
//! (third-party code, labelled by hand before analysis). Reports accuracy per
//! question and per code base, lists every miss with the labeller's reason,
//! and times each unit (release build; median and p99 over units of the
//! per-unit median of 5 runs). The last line is the JSON for report.json.
//! `NFC_BENCH_DUMP=<dir>` also writes each unit's facts there as JSON (one
//! file per unit), so two versions of the analyzer can be diffed unit by unit.
//! `NFC_BENCH_UNITS=<id>,<id>...` runs only those units (e.g. the slowest
//! one alone, for a profile or an A/B); the scores then cover only them.
//! `NFC_BENCH_TIMES=all` lists every unit's time, not only the five slowest
//! (which units make the median).
//!
//! Targets (issue "Analyzer II"): >= 90% stateful and flow key, >= 80%
//! intensity, pointer chasing and symmetry, zero unsafe answers; median
//! < 50 ms and p99 < 1 s per unit.

#[path = "../tests/realworld/score.rs"]
mod score;

use score::{analyze_unit, corpus_dir, load_units, score, Report};
use std::time::Instant;

/// Runs per unit (`NFC_BENCH_RUNS` overrides, e.g. 1 for a quick look).
fn runs() -> usize {
    std::env::var("NFC_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|n| *n > 0)
        .unwrap_or(5)
}

/// The units `NFC_BENCH_UNITS` names (all when unset); a name that is no
/// unit ends the bench, so a typo does not pass for a quick run.
fn only_units(units: Vec<score::Unit>) -> Vec<score::Unit> {
    let Ok(wanted) = std::env::var("NFC_BENCH_UNITS") else {
        return units;
    };
    let wanted: Vec<&str> = wanted
        .split(',')
        .map(str::trim)
        .filter(|w| !w.is_empty())
        .collect();
    if let Some(w) = wanted.iter().find(|w| !units.iter().any(|u| u.id == **w)) {
        eprintln!("error: NFC_BENCH_UNITS: no unit {w}");
        std::process::exit(1);
    }
    units
        .into_iter()
        .filter(|u| wanted.contains(&u.id.as_str()))
        .collect()
}

fn main() {
    // criterion-style flags (`--bench`) are passed by cargo; ignore them.
    let Some(corpus) = corpus_dir() else {
        eprintln!("SKIPPED: real-world corpus not fetched (run `cargo xtask setup --corpus`)");
        println!("{}", serde_json::json!({"skipped": "corpus not fetched"}));
        return;
    };
    let units = only_units(load_units());
    let mut report = Report::default();
    let mut times: Vec<(f64, String)> = vec![];
    let n_runs = runs();
    let dump_dir = std::env::var_os("NFC_BENCH_DUMP").map(std::path::PathBuf::from);
    if let Some(dir) = &dump_dir {
        if let Err(e) = std::fs::create_dir_all(dir) {
            eprintln!("error: NFC_BENCH_DUMP={}: {e}", dir.display());
            std::process::exit(1);
        }
    }
    for u in &units {
        let mut runs = vec![];
        let mut facts = None;
        for _ in 0..n_runs {
            let t0 = Instant::now();
            let (f, _) = analyze_unit(&corpus, u);
            runs.push(t0.elapsed().as_secs_f64() * 1000.0);
            facts = Some(f);
        }
        runs.sort_by(f64::total_cmp);
        times.push((runs[n_runs / 2], u.id.clone()));
        let facts = facts.expect("at least one run");
        if let Some(dir) = &dump_dir {
            let path = dir.join(format!("{}.json", u.id.replace('/', "__")));
            let json = serde_json::to_string_pretty(&facts).unwrap_or_default();
            if let Err(e) = std::fs::write(&path, json) {
                eprintln!("error: {}: {e}", path.display());
                std::process::exit(1);
            }
        }
        report.add(u, &score(u, &facts));
    }
    times.sort_by(|a, b| a.0.total_cmp(&b.0));
    let median = times[times.len() / 2].0;
    let p99_idx = ((times.len() as f64 * 0.99).ceil() as usize).clamp(1, times.len()) - 1;
    let p99 = times[p99_idx].0;
    println!(
        "real-world corpus: {} units, {} code bases",
        units.len(),
        units
            .iter()
            .map(|u| u.codebase.as_str())
            .collect::<std::collections::BTreeSet<_>>()
            .len()
    );
    println!("{}", report.table());
    println!(
        "time per unit (release, median of {n_runs} runs each): median {median:.1} ms, p99 {p99:.1} ms, slowest {:.1} ms ({})",
        times.last().map(|t| t.0).unwrap_or(0.0),
        times.last().map(|t| t.1.as_str()).unwrap_or("")
    );
    let listed = match std::env::var("NFC_BENCH_TIMES").as_deref() {
        Ok("all") => times.len(),
        _ => 5,
    };
    println!("slowest units:");
    for (ms, id) in times.iter().rev().take(listed) {
        println!("  {ms:>8.1} ms  {id}");
    }
    let mut json = report.json();
    json["units"] = serde_json::json!(units.len());
    json["time_ms"] = serde_json::json!({"median": median, "p99": p99});
    println!("{json}");
}
