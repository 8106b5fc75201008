//! The loader never panics on a corrupted CSV: 2,400 files mutated from
//! onvm-layout and nfc-schema seeds (with conflict markers, censored
//! latencies, warm-up rows, all-zero columns) are written to disk and
//! loaded; every one either loads consistently or fails with an error
//! located in that file at a line that exists.

use nfc_predictor::data::{load_file, ConflictPolicy, DataError};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// An onvm-layout file: index, rates, latency (some 15000.0), counters of
/// two NFs (one all-zero column), a warm-up row, optionally two conflict
/// sides.
fn seed_onvm(rng: &mut ChaCha8Rng, conflict: bool) -> String {
    let mut s = String::from(",input_rate,output_rate,latency,fw_cycles,fw_instructions,fw_mem-loads,br_cycles,br_LLC-loads\n");
    let row = |rng: &mut ChaCha8Rng, i: usize| {
        let out = if i == 0 {
            0.0
        } else {
            rng.gen_range(100.0..2000.0)
        };
        let lat = if rng.gen_bool(0.3) {
            15000.0
        } else {
            rng.gen_range(5.0..300.0)
        };
        format!(
            "{i},{:.3},{out:.3},{lat},{:.1},{:.1},0.0,{:.1},{:.1}\n",
            out * 1.01,
            rng.gen_range(1e9..3e9),
            rng.gen_range(1e9..5e9),
            rng.gen_range(1e9..3e9),
            rng.gen_range(1e5..1e7)
        )
    };
    if conflict {
        s.push_str("<<<<<<< HEAD\n");
        for i in 0..8 {
            s.push_str(&row(rng, i));
        }
        s.push_str("=======\n");
        for i in 0..8 {
            s.push_str(&row(rng, i));
        }
        s.push_str(">>>>>>> 0123abcd\n");
    } else {
        for i in 0..12 {
            s.push_str(&row(rng, i));
        }
    }
    s
}

/// nfc's schema: no index column, no latency.
fn seed_nfc(rng: &mut ChaCha8Rng) -> String {
    let mut s = String::from("input_rate,output_rate,nat_cycles,nat_branches\n");
    for _ in 0..10 {
        s.push_str(&format!(
            "{:.2},{:.2},{:.0},{:.0}\n",
            rng.gen_range(1.0..9.0),
            rng.gen_range(1.0..9.0),
            rng.gen_range(1e6..1e9),
            rng.gen_range(1e5..1e8)
        ));
    }
    s
}

const NASTY: &[&str] = &[
    "",
    "nan",
    "inf",
    "-1",
    "<not counted>",
    "1e999",
    "0x10",
    "\"3\"",
    "1,2",
    " ",
    "\u{feff}",
    "é",
    "=======",
    "<<<<<<< HEAD",
    ">>>>>>> x",
    "0",
    "15000.0",
    "-0",
    "1e-400",
];

fn mutate(rng: &mut ChaCha8Rng, text: &str) -> Vec<u8> {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let rounds = rng.gen_range(1..4);
    for _ in 0..rounds {
        let n = lines.len().max(1);
        match rng.gen_range(0..10) {
            0 => {
                let i = rng.gen_range(0..n);
                if i < lines.len() {
                    lines.remove(i);
                }
            }
            1 => {
                let i = rng.gen_range(0..n);
                let l = lines.get(i).cloned().unwrap_or_default();
                lines.insert(i, l);
            }
            2 => {
                let i = rng.gen_range(0..=lines.len());
                lines.insert(i, NASTY[rng.gen_range(0..NASTY.len())].to_string());
            }
            3 | 4 => {
                // Replace one cell.
                let i = rng.gen_range(0..n);
                if let Some(l) = lines.get_mut(i) {
                    let mut cells: Vec<String> = l.split(',').map(str::to_string).collect();
                    let c = rng.gen_range(0..cells.len());
                    cells[c] = NASTY[rng.gen_range(0..NASTY.len())].to_string();
                    *l = cells.join(",");
                }
            }
            5 => {
                // Drop or add a field.
                let i = rng.gen_range(0..n);
                if let Some(l) = lines.get_mut(i) {
                    if rng.gen_bool(0.5) {
                        if let Some(p) = l.rfind(',') {
                            l.truncate(p);
                        }
                    } else {
                        l.push_str(",7");
                    }
                }
            }
            6 => {
                let keep = rng.gen_range(0..=lines.len());
                lines.truncate(keep);
            }
            7 => {
                let (a, b) = (rng.gen_range(0..n), rng.gen_range(0..n));
                if a < lines.len() && b < lines.len() {
                    lines.swap(a, b);
                }
            }
            8 => {
                // Rename a header column.
                if let Some(h) = lines.first_mut() {
                    let mut cells: Vec<String> = h.split(',').map(str::to_string).collect();
                    let c = rng.gen_range(0..cells.len());
                    cells[c] = ["", "output_rate", "latency", "x", "a_", "_b", "fw_cycles"]
                        [rng.gen_range(0..7)]
                    .to_string();
                    *h = cells.join(",");
                }
            }
            _ => {}
        }
    }
    let mut bytes = lines
        .join(if rng.gen_bool(0.1) { "\r\n" } else { "\n" })
        .into_bytes();
    // Raw byte damage now and then (including invalid UTF-8).
    for _ in 0..rng.gen_range(0..3) {
        if !bytes.is_empty() && rng.gen_bool(0.5) {
            let i = rng.gen_range(0..bytes.len());
            bytes[i] = rng.gen();
        }
    }
    bytes
}

#[test]
fn corrupted_files_load_or_fail_located_never_panic() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(17);
    let (mut ok, mut rejected) = (0, 0);
    const FILES: usize = 2400;
    for k in 0..FILES {
        let seed = match k % 3 {
            0 => seed_onvm(&mut rng, false),
            1 => seed_onvm(&mut rng, true),
            _ => seed_nfc(&mut rng),
        };
        let bytes = mutate(&mut rng, &seed);
        let path = dir.path().join(format!("f{k}.csv"));
        std::fs::write(&path, &bytes).unwrap();
        let lines = bytes.split(|b| *b == b'\n').count();
        for policy in [ConflictPolicy::Reject, ConflictPolicy::Both] {
            let result = std::panic::catch_unwind(|| load_file(&path, policy));
            let Ok(result) = result else {
                panic!(
                    "the loader panicked on {} ({policy:?}):\n{}",
                    path.display(),
                    String::from_utf8_lossy(&bytes)
                );
            };
            match result {
                Ok(experiments) => {
                    ok += 1;
                    assert!(!experiments.is_empty());
                    for e in &experiments {
                        assert!(!e.samples.is_empty());
                        assert!(e
                            .samples
                            .iter()
                            .all(|s| s.counters.len() == e.counters.len()
                                && s.output_rate > 0.0
                                && s.counters.iter().all(|v| v.is_finite())));
                    }
                }
                Err(DataError::Malformed { at, message }) => {
                    rejected += 1;
                    assert_eq!(at.path, path, "{message}");
                    assert!(
                        at.line >= 1 && at.line <= lines,
                        "{}: line {} of {lines}: {message}",
                        path.display(),
                        at.line
                    );
                    let shown = DataError::Malformed {
                        at: at.clone(),
                        message,
                    }
                    .to_string();
                    assert!(
                        shown.starts_with(&format!("{}:{}", path.display(), at.line)),
                        "{shown}"
                    );
                }
                Err(e) => panic!("unexpected error kind on {}: {e}", path.display()),
            }
        }
    }
    // The mutator must exercise both outcomes, or the test proves little.
    assert!(ok > 200 && rejected > 1000, "ok {ok}, rejected {rejected}");
    eprintln!(
        "{FILES} corrupted files × 2 policies: {ok} loaded, {rejected} rejected with a location"
    );
}
