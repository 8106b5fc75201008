//! The feature tracker: facts are served from the cache while the NF's
//! source closure is unchanged and recomputed when a file or an included
//! local header changes.

use nfc_analyzer::{analyze, input_from_paths, AnalyzeOptions};
use std::path::Path;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        if p.is_file() {
            std::fs::copy(&p, to.join(p.file_name().unwrap())).unwrap();
        }
    }
}

fn cache_files(dir: &Path) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default()
}

#[test]
fn cache_hits_until_the_source_closure_changes() {
    let tmp = tempfile::tempdir().unwrap();
    let nf = tmp.path().join("lb");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/dpdk_lb_conntrack"),
        &nf,
    );
    std::fs::remove_file(nf.join("lb.h")).unwrap();
    // Keep the header outside the NF directory: it only enters through #include.
    std::fs::create_dir_all(tmp.path().join("include")).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/dpdk_lb_conntrack/lb.h"),
        tmp.path().join("include/lb.h"),
    )
    .unwrap();
    let cache = tmp.path().join("facts-cache");
    let opts = AnalyzeOptions {
        cache_dir: Some(cache.clone()),
        ..Default::default()
    };
    let input = input_from_paths(None, std::slice::from_ref(&nf)).unwrap();

    let (first, _) = analyze(&input, &opts).unwrap();
    let files = cache_files(&cache);
    assert_eq!(files.len(), 1, "one cache entry written");

    // Tamper with the entry: a hit must return exactly what is stored.
    let raw = std::fs::read_to_string(&files[0]).unwrap();
    std::fs::write(
        &files[0],
        raw.replacen("\"stateful\": true", "\"stateful\": false", 1),
    )
    .unwrap();
    let (hit, _) = analyze(&input, &opts).unwrap();
    assert!(!hit.stateful, "served from the cache");

    // Touching an included header (outside the NF dir) invalidates the entry.
    let h = tmp.path().join("include/lb.h");
    let text = std::fs::read_to_string(&h).unwrap();
    std::fs::write(&h, format!("{text}\n/* edited */\n")).unwrap();
    let (fresh, _) = analyze(&input, &opts).unwrap();
    assert!(fresh.stateful);
    assert_eq!(fresh.flow_key, first.flow_key);
    assert_eq!(cache_files(&cache).len(), 2);
}
