//! Analysis speed: the static backend on every labelled NF (corpus + NF
//! library), and the feature-tracker paths (cache hit vs. re-analysis).
//! Target: median < 50 ms per NF for the static backend.

use criterion::{criterion_group, criterion_main, Criterion};
use nfc_analyzer::{analyze, input_from_paths, AnalysisInput, AnalyzeOptions};
use std::path::Path;

fn inputs() -> Vec<AnalysisInput> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut dirs = vec![];
    for base in [
        root.join("tests/corpus"),
        root.join("../../nfs"),
        root.join("../../nfs/click"),
    ] {
        if let Ok(rd) = std::fs::read_dir(&base) {
            for e in rd.flatten() {
                let p = e.path();
                if p.join("expected.yaml").is_file() || p.join("facts.yaml").is_file() {
                    dirs.push(p);
                }
            }
        }
    }
    dirs.sort();
    dirs.into_iter()
        .filter_map(|d| input_from_paths(None, &[d]).ok())
        .collect()
}

fn bench_static(c: &mut Criterion) {
    let inputs = inputs();
    let mut g = c.benchmark_group("static");
    g.sample_size(10);
    for input in &inputs {
        g.bench_function(&input.name, |b| {
            b.iter(|| analyze(input, &AnalyzeOptions::default()).unwrap())
        });
    }
    g.finish();
}

fn bench_cache(c: &mut Criterion) {
    let inputs = inputs();
    let Some(input) = inputs.iter().find(|i| i.name == "nat").or(inputs.first()) else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("nfc-analyzer-bench-{}", std::process::id()));
    let cached = AnalyzeOptions {
        cache_dir: Some(dir.clone()),
        ..Default::default()
    };
    analyze(input, &cached).unwrap();
    let mut g = c.benchmark_group("feature_tracker");
    g.sample_size(20);
    g.bench_function("cache_hit", |b| b.iter(|| analyze(input, &cached).unwrap()));
    g.bench_function("reanalyse", |b| {
        b.iter(|| analyze(input, &AnalyzeOptions::default()).unwrap())
    });
    g.finish();
    let _ = std::fs::remove_dir_all(dir);
}

criterion_group!(benches, bench_static, bench_cache);
criterion_main!(benches);
