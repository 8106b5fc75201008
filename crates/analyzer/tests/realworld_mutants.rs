//! Robustness on third-party code: mutants of every real-world unit (lines
//! deleted, duplicated, swapped, truncated, unbalanced tokens, identifiers
//! renamed, deep nesting) never panic the static analyzer, never run past
//! the time budget, and the process's peak memory stays under the memory
//! budget. Runs in its own test binary so the peak memory is this test's.

#[path = "realworld/score.rs"]
mod score;

use nfc_analyzer::static_analysis::{
    analyze_static_with, SourceText, ANALYSIS_FAILED, OVER_BUDGET,
};
use nfc_analyzer::Budget;
use std::time::{Duration, Instant};

/// Mutants per run (the acceptance asks for at least 2,000).
const MUTANTS: usize = 2_000;

/// A small deterministic generator (xorshift64*), so failures replay.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const TOKENS: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    ";",
    "*",
    "->",
    "[",
    "]",
    "/*",
    "\"",
    "#define X(a) a->a\n",
    "#if 0\n",
    "&",
    "struct",
    "static",
    "return",
    "goto out;",
    "case 1:",
    "?",
    "::",
    "<",
    ">",
    "\\\n",
];

fn mutate(rng: &mut Rng, text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    if lines.is_empty() {
        return TOKENS[rng.below(TOKENS.len())].to_string();
    }
    let i = rng.below(lines.len());
    let j = rng.below(lines.len());
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    match rng.below(8) {
        0 => {
            let end = (i + 1 + rng.below(40)).min(out.len());
            out.drain(i..end);
        }
        1 => out.insert(i, lines[j].to_string()),
        2 => out.swap(i, j),
        3 => {
            // truncate at a char boundary
            let joined = out.join("\n");
            let mut cut = rng.below(joined.len());
            while !joined.is_char_boundary(cut) {
                cut -= 1;
            }
            return joined[..cut].to_string();
        }
        4 => {
            let t = TOKENS[rng.below(TOKENS.len())];
            let l = &out[i];
            let mut at = rng.below(l.len() + 1);
            while !l.is_char_boundary(at) {
                at -= 1;
            }
            out[i] = format!("{}{t}{}", &l[..at], &l[at..]);
        }
        5 => {
            // rename one identifier of the line everywhere to another's name
            let words = |s: &str| -> Vec<String> {
                s.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .filter(|w| w.len() > 2 && !w.chars().next().unwrap().is_ascii_digit())
                    .map(str::to_string)
                    .collect()
            };
            let (a, b) = (words(lines[i]), words(lines[j]));
            if let (Some(a), Some(b)) = (a.first(), b.last()) {
                return text.replace(a.as_str(), b);
            }
        }
        6 => {
            // deep nesting, as generated code sometimes has
            let depth = 50 + rng.below(400);
            out.insert(i, format!("{}x{}", "(".repeat(depth), ")".repeat(depth)));
        }
        _ => {
            // a pointer cycle through members, repeated
            out.insert(
                i,
                "p = p->next->prev->next; q->a.b.c = p->a.b.c->d;".repeat(1 + rng.below(20)),
            );
        }
    }
    out.join("\n")
}

fn peak_rss_bytes() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

#[test]
fn mutants_of_real_world_units_never_panic_hang_or_exceed_memory() {
    let Some(corpus) = score::corpus_dir() else {
        eprintln!("SKIPPED: real-world corpus not fetched (run `cargo xtask setup --corpus`)");
        return;
    };
    let units = score::load_units();
    // Each unit's own files (not the include closure): the code we did not write.
    let sources: Vec<(String, Vec<SourceText>)> = units
        .iter()
        .map(|u| {
            let (files, _) = score::unit_paths(&corpus, u);
            let texts = files
                .iter()
                .filter_map(|f| {
                    Some(SourceText {
                        included: false,
                        display: f.display().to_string(),
                        text: String::from_utf8_lossy(&std::fs::read(f).ok()?).into_owned(),
                    })
                })
                .collect();
            (u.id.clone(), texts)
        })
        .collect();
    // The default memory budget, and a shorter time budget than the
    // default 5 s so the units that run out of it (nDPI's 9,000-line core)
    // do not dominate the test's run time; the property is the same.
    let budget = Budget {
        time: Duration::from_secs(2),
        ..Budget::default()
    };
    // Each mutant draws from its own generator (seeded by its number), so a
    // failure replays whatever thread ran it; two threads use both cores.
    let run_one = |n: usize| -> Option<(bool, Duration, String)> {
        let (id, texts) = &sources[n % sources.len()];
        if texts.is_empty() {
            return None;
        }
        let mut rng =
            Rng(0x9e37_79b9_7f4a_7c15 ^ (n as u64 + 1).wrapping_mul(0x2545_f491_4f6c_dd1d));
        let mut mutant = texts.clone();
        let k = rng.below(mutant.len());
        for _ in 0..1 + rng.below(3) {
            mutant[k].text = mutate(&mut rng, &mutant[k].text);
        }
        let t0 = Instant::now();
        let result =
            std::panic::catch_unwind(|| analyze_static_with(id, &mutant, None, &budget, &[]));
        let took = t0.elapsed();
        let keep = |mutant: &[SourceText]| {
            let path = std::env::temp_dir().join(format!("nfc-mutant-{n}.c"));
            let _ = std::fs::write(&path, &mutant[k].text);
            path
        };
        let (facts, diags) = match result {
            Ok(r) => r,
            Err(_) => panic!(
                "mutant {n} of {id} panicked the analyzer; mutant written to {}",
                keep(&mutant).display()
            ),
        };
        if let Some(d) = diags.iter().find(|d| d.code == ANALYSIS_FAILED) {
            panic!(
                "mutant {n} of {id}: {}; mutant written to {}",
                d.message,
                keep(&mutant).display()
            );
        }
        assert!(
            // The budget is CPU time, with a wall-clock backstop at four
            // times it (`cpu_clock::WALL_BACKSTOP`).
            took < budget.time * 4 + Duration::from_secs(2),
            "mutant {n} of {id} ran {took:?}, past its {:?} budget (mutant written to {})",
            budget.time,
            keep(&mutant).display()
        );
        let over = diags.iter().any(|d| d.code == OVER_BUDGET);
        if over {
            assert!(
                !facts.splittable(),
                "an over-budget answer must be the conservative one"
            );
        }
        Some((over, took, format!("mutant {n} of {id}")))
    };
    const THREADS: usize = 2;
    // Threads take the next mutant as they go (units differ in cost).
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<(bool, Duration, String)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..THREADS)
            .map(|_| {
                let (run_one, next) = (&run_one, &next);
                scope.spawn(move || {
                    std::iter::from_fn(|| {
                        let n = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        (n < MUTANTS).then_some(n)
                    })
                    .filter_map(run_one)
                    .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    let over_budget = results.iter().filter(|r| r.0).count();
    let slowest = results
        .iter()
        .max_by_key(|r| r.1)
        .map(|r| (r.1, r.2.clone()))
        .unwrap_or_default();
    let peak = peak_rss_bytes();
    eprintln!(
        "{MUTANTS} mutants of {} units: slowest {:?} ({}), {over_budget} over budget, peak RSS {} MB",
        sources.len(),
        slowest.0,
        slowest.1,
        peak.map(|p| p >> 20).unwrap_or(0)
    );
    if let Some(p) = peak {
        assert!(
            p < budget.memory_bytes,
            "peak memory {} MB is over the {} MB budget",
            p >> 20,
            budget.memory_bytes >> 20
        );
    }
}
