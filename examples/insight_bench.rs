//! The SmartNIC insight bench (issue 19, `cargo xtask bench insight`):
//! synthesise NF-like and naive programs and lower them with the held-out
//! NFs (the built-ins, the real-world corpus units of `labels.yaml` and the
//! Click elements that compile for the target) for the proxy target
//! (riscv32, llc-19 -O2); Table 1's similarity metrics (against the
//! built-ins); the LSTM vs DNN vs CNN vs GBDT comparison by WMAPE per
//! held-out NF, per group and overall (trained by `nfc-predict insight train`, the only binary with
//! libtorch); the CRC/LPM accelerator classifier on held-out
//! implementations. Writes `target/nfc-bench/insight/report.md` and
//! `report.json`; prints the markdown and, last, one line of JSON.
//! `cargo run --release --example insight_bench -- [programs] [epochs]`, or
//! `-- accel` for the accelerator classifier alone; `INSIGHT_NO_ACCEL=1`
//! runs everything but the accelerator classifier.
use nfc_smartnic::accel::{evaluate, AccelKind, Labelled};
use nfc_smartnic::similarity::{compare, opcode_distribution};
use nfc_smartnic::synth::Profile;
use nfc_smartnic::word_cost::{wmape, WordCostModel};
use std::path::{Path, PathBuf};
use std::process::Command;

/// One fresh held-out file's line of `accel-lower`: its functions and
/// labels per kind.
fn print_fresh_file(
    set: &str,
    file: &str,
    u: &nfc_core::insight::IrUnit,
    labels: &[(String, AccelKind)],
) {
    let count = |k: AccelKind| labels.iter().filter(|l| l.1 == k).count();
    println!(
        "{set}/{file}: {} functions, {} labelled (crc {}, lpm {}, none {})",
        own(u).len(),
        labels.len(),
        count(AccelKind::Crc),
        count(AccelKind::Lpm),
        count(AccelKind::None)
    );
}

/// `accel-lower <set> --functions`: one line per function of a fresh file
/// with its IR instruction count and a hash of its compacted words, so two
/// lowerings of a set (before and after a change to its headers or include
/// path) can be diffed.
fn print_functions(file: &str, u: &nfc_core::insight::IrUnit) {
    use std::hash::{Hash, Hasher};
    for f in own(u) {
        // SipHash with fixed keys: the same words give the same hash in every run.
        let mut h = std::collections::hash_map::DefaultHasher::new();
        f.words().for_each(|w| w.hash(&mut h));
        println!(
            "  {file} {}: {} IR instructions in {} blocks, words {:016x}",
            f.name,
            f.len(),
            f.blocks.len(),
            h.finish()
        );
    }
}

/// `accel-lower <set> --signals`: one line per function of a fresh file
/// with its non-zero accelerator signals (no model, no label shown), to
/// read what the dataflow sees in a tainted set's function.
fn print_signals(file: &str, u: &nfc_core::insight::IrUnit) {
    for f in own(u) {
        let sig = serde_json::to_value(f.signals).unwrap_or_default();
        let on: Vec<String> = sig
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(_, v)| v.as_u64().is_some_and(|n| n > 0))
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        println!("  {file} {}: {}", f.name, on.join(" "));
    }
}

fn own(u: &nfc_core::insight::IrUnit) -> Vec<&nfc_core::insight::IrFunction> {
    u.functions.iter().filter(|f| !f.framework).collect()
}

type Units = Vec<nfc_core::insight::IrUnit>;

/// The held-out NFs (issue 19 item 4: never trained on): the built-ins,
/// the real-world corpus units that compile for the proxy target, and the
/// Click elements that do; each NF's group, and what failed to lower.
struct HeldOut {
    units: Units,
    /// (NF, group) in the order of `units`; groups: built-in, corpus, Click.
    group: Vec<(String, &'static str)>,
    /// Per group: the units lowered and the failures (`id: reason`).
    lowering: Vec<(&'static str, Vec<String>, Vec<String>)>,
}

/// First seed of the length probe's programs (training uses 1..=n).
const PROBE_SEED: u64 = 7_000_000;
const GROUPS: [&str; 3] = ["built-in", "corpus", "Click"];

fn held_out(root: &Path) -> HeldOut {
    let builtin = nfc::insight::builtin_nfs(&root.join("nfs"));
    let corpus_dir = std::env::var_os("NFC_CORPUS_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/var/tmp/nfc-corpus"));
    let corpus = if corpus_dir.join("manifest.json").is_file() {
        nfc::insight::corpus_nfs(&corpus_dir)
    } else {
        nfc::insight::Lowered {
            units: vec![],
            failures: vec![format!(
                "corpus not fetched at {} (run `cargo xtask setup --corpus`)",
                corpus_dir.display()
            )],
        }
    };
    let click = nfc::insight::click_nfs(&root.join("nfs/click"));
    let mut h = HeldOut {
        units: vec![],
        group: vec![],
        lowering: vec![],
    };
    for (g, l) in GROUPS.into_iter().zip([builtin, corpus, click]) {
        h.lowering.push((
            g,
            l.units.iter().map(|u| u.name.clone()).collect(),
            l.failures.clone(),
        ));
        for u in l.units {
            h.group.push((u.name.clone(), g));
            h.units.push(u);
        }
    }
    h
}

/// The lowering of the held-out set, per group, as markdown.
fn lowering_md(h: &HeldOut) -> String {
    let mut md = String::new();
    for (g, ok, failed) in &h.lowering {
        md.push_str(&format!(
            "- **{g}**: {} lowered ({}); {} failed\n",
            ok.len(),
            ok.join(", "),
            failed.len()
        ));
        for f in failed {
            md.push_str(&format!("  - {f}\n"));
        }
    }
    md
}

/// WMAPE pooled over the NFs of `rows` (each `(Σ proxy instructions,
/// WMAPE)`): Σ|ŷ−y| / Σy, as if the group's functions were one NF.
fn pooled(rows: &[(f64, f64)]) -> f64 {
    let den: f64 = rows.iter().map(|r| r.0).sum();
    rows.iter().map(|r| r.0 * r.1).sum::<f64>() / den
}

fn dataset(
    out: &Path,
    n: usize,
) -> anyhow::Result<(serde_json::Value, Units, HeldOut, Units, String)> {
    let t0 = std::time::Instant::now();
    let train = nfc::insight::synthesise(&Profile::nf_like(), n, 1, 2);
    let naive = nfc::insight::synthesise(&Profile::naive(), n / 3, 1_000_000, 2);
    let v1 = nfc::insight::synthesise(&Profile::nf_like_v1(), n / 3, 1, 2);
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let heldout = held_out(&root);
    // Table 1's "real NFs" stay the built-ins (the generator was tuned on
    // their IR words; the new held-out NFs must not move its yardstick).
    let held = nfc::insight::Lowered {
        units: heldout
            .units
            .iter()
            .zip(&heldout.group)
            .filter(|(_, g)| g.1 == "built-in")
            .map(|(u, _)| u.clone())
            .collect(),
        failures: heldout.lowering[0].2.clone(),
    };
    eprintln!(
        "lowered {} nf-like ({} failed), {} naive ({} failed), {} held-out NFs in {:.1}s:\n{}",
        train.units.len(),
        train.failures.len(),
        naive.units.len(),
        naive.failures.len(),
        heldout.units.len(),
        t0.elapsed().as_secs_f64(),
        lowering_md(&heldout)
    );
    for f in train.failures.iter().chain(&naive.failures).take(3) {
        eprintln!("  failure: {f}");
    }
    let dist = |units: &[nfc_core::insight::IrUnit]| {
        opcode_distribution(
            units
                .iter()
                .flat_map(|u| u.functions.iter().filter(|f| !f.framework))
                .flat_map(|f| f.words()),
        )
    };
    let real = dist(&held.units);
    let (shift, shift_md) = shift_report(
        &held.units,
        &[
            ("nf-like", train.units.clone()),
            ("nf-like-v1", v1.units.clone()),
            ("naive", naive.units.clone()),
        ],
    );
    let sim = serde_json::json!({
        "nf_like": compare(&real, &dist(&train.units)),
        "naive": compare(&real, &dist(&naive.units)),
        "nf_like_v1": compare(&real, &dist(&v1.units)),
        "shift": shift,
        "real_programs": held.units.len(),
        "nf_like_programs": train.units.len(),
        "naive_programs": naive.units.len(),
        "failures": { "nf_like": train.failures, "naive": naive.failures, "heldout": held.failures },
    });
    std::fs::write(out.join("train.json"), serde_json::to_vec(&train.units)?)?;
    std::fs::write(out.join("naive.json"), serde_json::to_vec(&naive.units)?)?;
    std::fs::write(
        out.join("heldout.json"),
        serde_json::to_vec(&heldout.units)?,
    )?;
    std::fs::write(
        out.join("similarity.json"),
        serde_json::to_vec_pretty(&sim)?,
    )?;
    Ok((sim, train.units, heldout, held.units, shift_md))
}

/// The generator-vs-real-NF comparison: Table 1's metrics on the opcode
/// mix and on the whole compacted words, shape statistics (function and
/// block sizes, calls, i64, memory classes, proxy instructions per word),
/// and the words that contribute most to the word-level Jensen–Shannon
/// divergence, per generator.
fn shift_report(
    real: &[nfc_core::insight::IrUnit],
    gens: &[(&str, Units)],
) -> (serde_json::Value, String) {
    use nfc_smartnic::similarity::{shape, word_distribution};
    let fns = |units: &[nfc_core::insight::IrUnit]| -> Vec<nfc_core::insight::IrFunction> {
        units
            .iter()
            .flat_map(|u| u.functions.iter().filter(|f| !f.framework).cloned())
            .collect()
    };
    let real_f = fns(real);
    let ops = |fs: &[nfc_core::insight::IrFunction]| {
        opcode_distribution(fs.iter().flat_map(|f| f.words()))
    };
    let words =
        |fs: &[nfc_core::insight::IrFunction]| word_distribution(fs.iter().flat_map(|f| f.words()));
    let (real_ops, real_words) = (ops(&real_f), words(&real_f));
    let mut md = String::from(
        "| generator | metric | opcode mix (Table 1) | whole words |\n|---|---|---|---|\n",
    );
    let mut shapes = vec![("real NFs".to_string(), shape(&real_f))];
    let mut js = serde_json::Map::new();
    let mut tops = String::new();
    for (name, units) in gens {
        let f = fns(units);
        let (o, w) = (
            compare(&real_ops, &ops(&f)),
            compare(&real_words, &words(&f)),
        );
        for ((k, a), (_, b)) in o.entries().iter().zip(w.entries()) {
            md.push_str(&format!("| {name} | {k} | {a:.4} | {b:.4} |\n"));
        }
        js.insert(
            name.to_string(),
            serde_json::json!({"opcode": o, "word": w}),
        );
        shapes.push((name.to_string(), shape(&f)));
        let vocab: std::collections::BTreeSet<&str> = f.iter().flat_map(|x| x.words()).collect();
        let unseen: f64 = real_words
            .iter()
            .filter(|(k, _)| !vocab.contains(k.as_str()))
            .map(|(_, v)| v)
            .sum();
        tops.push_str(&format!("\n{name}: {:.1}% of the real NFs' words never occur in its programs. Largest word-level JS contributions (real share vs generator share):\n\n| word | real | {name} | bits |\n|---|---|---|---|\n", 100.0 * unseen));
        tops.push_str(&shift_rows(&real_words, &words(&f), 15));
    }
    md.push_str("\n| set | functions | words/fn | p90 | blocks/fn | words/block | cond-br blocks | switch blocks | calls | i64 | stack | state | packet | indirect | proxy instr/word |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (n, s) in &shapes {
        md.push_str(&format!(
            "| {n} | {} | {:.1} | {:.0} | {:.1} | {:.2} | {:.2} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.2} |\n",
            s.functions, s.words_per_function, s.words_per_function_p90, s.blocks_per_function, s.words_per_block,
            s.cond_block_share, s.switch_block_share, s.call_share, s.i64_share, s.stack_share, s.state_share,
            s.packet_share, s.indirect_share, s.proxy_per_word
        ));
    }
    md.push_str(&tops);
    (serde_json::json!({"metrics": js, "shapes": shapes}), md)
}

/// eBPF packet programs of the corpus outside every held-out unit, with
/// their include directories, relative to the corpus root (`labels.yaml`'s
/// xdp-filter, trafficgen, xdp-forward-fib and xdp-bench-cpumap are held
/// out; xdp-filter's other variants share its code and are left out).
/// Files that do not compile for the proxy target are reported and skipped.
const XDP_GUIDE: &[(&str, &[&str])] = &[
    (
        "xdp-tools/xdp-bench/xdp_basic.bpf.c",
        &[
            "xdp-tools/xdp-bench",
            "xdp-tools/headers",
            "xdp-tools/lib/util",
        ],
    ),
    (
        "xdp-tools/xdp-bench/xdp_redirect_basic.bpf.c",
        &[
            "xdp-tools/xdp-bench",
            "xdp-tools/headers",
            "xdp-tools/lib/util",
        ],
    ),
    (
        "xdp-tools/xdp-bench/xdp_redirect_devmap.bpf.c",
        &[
            "xdp-tools/xdp-bench",
            "xdp-tools/headers",
            "xdp-tools/lib/util",
        ],
    ),
    (
        "xdp-tools/xdp-bench/xdp_redirect_devmap_multi.bpf.c",
        &[
            "xdp-tools/xdp-bench",
            "xdp-tools/headers",
            "xdp-tools/lib/util",
        ],
    ),
    (
        "xdp-tools/xdp-forward/xdp_flowtable.bpf.c",
        &[
            "xdp-tools/xdp-forward",
            "xdp-tools/headers",
            "xdp-tools/lib/util",
        ],
    ),
    (
        "xdp-tools/xdp-forward/xdp_flowtable_sample.bpf.c",
        &[
            "xdp-tools/xdp-forward",
            "xdp-tools/headers",
            "xdp-tools/lib/util",
        ],
    ),
    (
        "xdp-tools/xdp-monitor/xdp_monitor.bpf.c",
        &[
            "xdp-tools/xdp-monitor",
            "xdp-tools/headers",
            "xdp-tools/lib/util",
        ],
    ),
    (
        "xdp-tools/lib/util/xdpsock.bpf.c",
        &["xdp-tools/lib/util", "xdp-tools/headers"],
    ),
    (
        "xdp-tools/lib/libxdp/xsk_def_xdp_prog.c",
        &["xdp-tools/lib/libxdp", "xdp-tools/headers"],
    ),
    (
        "xdp-tools/lib/testing/xdp_adjust_tail.c",
        &["xdp-tools/lib/testing", "xdp-tools/headers"],
    ),
    (
        "suricata/ebpf/xdp_filter.c",
        &["suricata/ebpf", "suricata/ebpf/include"],
    ),
    (
        "suricata/ebpf/xdp_lb.c",
        &["suricata/ebpf", "suricata/ebpf/include"],
    ),
    (
        "suricata/ebpf/filter.c",
        &["suricata/ebpf", "suricata/ebpf/include"],
    ),
    (
        "suricata/ebpf/bypass_filter.c",
        &["suricata/ebpf", "suricata/ebpf/include"],
    ),
    (
        "suricata/ebpf/lb.c",
        &["suricata/ebpf", "suricata/ebpf/include"],
    ),
    (
        "suricata/ebpf/vlan_filter.c",
        &["suricata/ebpf", "suricata/ebpf/include"],
    ),
    (
        "knot/src/libknot/xdp/bpf-kernel.c",
        &["knot/src/libknot/xdp"],
    ),
];

/// The `n` words that separate `p` from `q` most (their shares and
/// Jensen–Shannon contributions) as markdown table rows.
fn shift_rows(
    p: &std::collections::BTreeMap<String, f64>,
    q: &std::collections::BTreeMap<String, f64>,
    n: usize,
) -> String {
    nfc_smartnic::similarity::word_shift(p, q)
        .into_iter()
        .take(n)
        .map(|(k, a, b, c)| {
            format!(
                "| `{k}` | {:.2}% | {:.2}% | {c:.4} |\n",
                100.0 * a,
                100.0 * b
            )
        })
        .collect()
}

/// The guide's units (one per file that lowers; failures printed), each
/// holding only the functions its own file defines.
fn xdp_guide() -> anyhow::Result<Units> {
    let corpus = std::env::var_os("NFC_CORPUS_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/var/tmp/nfc-corpus"));
    let root = corpus;
    let mut units = vec![];
    for (file, incs) in XDP_GUIDE {
        let src = root.join(file);
        let includes: Vec<PathBuf> = incs.iter().map(|d| root.join(d)).collect();
        match nfc::insight::lower_third_party(file, std::slice::from_ref(&src), &includes) {
            Ok(mut u) => {
                u.functions.retain(|f| {
                    !f.framework
                        && nfc::insight::definition_line(std::slice::from_ref(&src), &f.name)
                            .is_some()
                });
                units.push(u);
            }
            Err(e) => eprintln!("guide: {file}: {e}"),
        }
    }
    Ok(units)
}

/// The guide against each generator's programs: per guide file, its
/// functions, words, words the first generator's vocabulary lacks and
/// proxy instructions per word; the shape of each set; per generator, how
/// many guide words its vocabulary lacks or holds rarely (≤ 10 times) and
/// Table 1's metrics against the guide; the largest word-level JS
/// contributions between the guide and each of the first two generators.
fn guide_report(guide: &[nfc_core::insight::IrUnit], gens: &[(&str, &Units)]) -> String {
    use nfc_smartnic::similarity::{shape, word_distribution};
    type F = nfc_core::insight::IrFunction;
    let fns = |units: &[nfc_core::insight::IrUnit]| -> Vec<F> {
        units
            .iter()
            .flat_map(|u| {
                u.functions
                    .iter()
                    .filter(|f| !f.framework && !f.is_empty())
                    .cloned()
            })
            .collect()
    };
    let counts = |f: &[F]| -> std::collections::BTreeMap<String, usize> {
        let mut m = std::collections::BTreeMap::new();
        for w in f.iter().flat_map(|x| x.words()) {
            *m.entry(w.to_string()).or_default() += 1;
        }
        m
    };
    let gf = fns(guide);
    let sets: Vec<(&str, Vec<F>)> = gens.iter().map(|(n, u)| (*n, fns(u))).collect();
    let vocab0 = counts(&sets[0].1);
    let mut md = format!(
        "| file | functions | words | unseen by {} | proxy instr/word |\n|---|---|---|---|---|\n",
        sets[0].0
    );
    for u in guide {
        let f: Vec<&F> = u.functions.iter().filter(|f| !f.is_empty()).collect();
        let words: usize = f.iter().map(|x| x.len()).sum();
        let unseen = f
            .iter()
            .flat_map(|x| x.words())
            .filter(|w| !vocab0.contains_key(*w))
            .count();
        md.push_str(&format!(
            "| {} | {} | {words} | {unseen} ({:.1}%) | {:.2} |\n",
            u.name,
            f.len(),
            100.0 * unseen as f64 / words.max(1) as f64,
            shape(f.iter().copied()).proxy_per_word
        ));
    }
    md.push_str("\n| set | functions | words/fn | blocks/fn | words/block | calls | i64 | stack | state | packet | indirect | proxy instr/word |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (n, f) in std::iter::once(("guide", &gf)).chain(sets.iter().map(|(n, f)| (*n, f))) {
        let s = shape(f.iter());
        md.push_str(&format!(
            "| {n} | {} | {:.1} | {:.1} | {:.2} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.2} |\n",
            s.functions, s.words_per_function, s.blocks_per_function, s.words_per_block,
            s.call_share, s.i64_share, s.stack_share, s.state_share, s.packet_share, s.indirect_share, s.proxy_per_word
        ));
    }
    let words = |f: &[F]| word_distribution(f.iter().flat_map(|x| x.words()));
    let ops = |f: &[F]| opcode_distribution(f.iter().flat_map(|x| x.words()));
    let (gw, go) = (words(&gf), ops(&gf));
    md.push_str("\n| generator | guide words unseen | seen ≤ 10 times |\n|---|---|---|\n");
    for (n, f) in &sets {
        let c = counts(f);
        let unseen: f64 = gw
            .iter()
            .filter(|(k, _)| !c.contains_key(*k))
            .map(|(_, v)| v)
            .sum();
        let rare: f64 = gw
            .iter()
            .filter(|(k, _)| c.get(*k).is_some_and(|x| *x <= 10))
            .map(|(_, v)| v)
            .sum();
        md.push_str(&format!(
            "| {n} | {:.1}% | {:.1}% |\n",
            100.0 * unseen,
            100.0 * rare
        ));
    }
    md.push_str("\nTable 1's metrics against the guide (opcodes / whole words):\n\n| metric |");
    for (n, _) in &sets {
        md.push_str(&format!(" {n} |"));
    }
    md.push_str("\n|---|");
    md.push_str(&"---|".repeat(sets.len()));
    md.push('\n');
    let cmp: Vec<_> = sets
        .iter()
        .map(|(_, f)| (compare(&go, &ops(f)), compare(&gw, &words(f))))
        .collect();
    for (i, (k, _)) in cmp[0].0.entries().iter().enumerate() {
        md.push_str(&format!("| {k} |"));
        for (o, w) in &cmp {
            md.push_str(&format!(
                " {:.4} / {:.4} |",
                o.entries()[i].1,
                w.entries()[i].1
            ));
        }
        md.push('\n');
    }
    for (n, f) in sets.iter().take(2) {
        md.push_str(&format!("\nLargest word-level JS contributions, guide vs {n} (shares):\n\n| word | guide | {n} | bits |\n|---|---|---|---|\n"));
        md.push_str(&shift_rows(&gw, &words(f), 30));
    }
    md
}

/// The per-word linear cost model (no libtorch; what `nfc insight` ships):
/// fitted on the same split as the networks (every 5th program validates),
/// scored by WMAPE per held-out NF.
fn word_cost(
    synth: &[nfc_core::insight::IrUnit],
    held: &[nfc_core::insight::IrUnit],
    group: &[(String, &'static str)],
) -> anyhow::Result<(WordCostModel, String, serde_json::Value)> {
    let (mut tr, mut va) = (vec![], vec![]);
    for (i, u) in synth.iter().enumerate() {
        let fs = own(u).into_iter().filter(|f| !f.is_empty());
        if i % 5 == 4 {
            va.extend(fs);
        } else {
            tr.extend(fs);
        }
    }
    let m = WordCostModel::fit(&tr, &va).map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut md = format!(
        "word-cost model: {} training / {} validation functions, {} words, l2 {} (validation WMAPE {:.1}%)\n\n| NF | word-cost WMAPE |\n|---|---|\n",
        m.train_functions,
        m.val_functions,
        m.words.len(),
        m.l2,
        100.0 * m.val_wmape
    );
    let (mut all_p, mut all_y) = (vec![], vec![]);
    let mut by_group: std::collections::BTreeMap<&str, (Vec<f64>, Vec<f64>)> = Default::default();
    let group_of = |nf: &str| group.iter().find(|g| g.0 == nf).map_or("built-in", |g| g.1);
    for u in held {
        let fs: Vec<_> = own(u)
            .into_iter()
            .filter(|f| !f.is_empty() && f.proxy.is_some())
            .collect();
        let p: Vec<f64> = fs.iter().map(|f| m.predict(f)).collect();
        let y: Vec<f64> = fs
            .iter()
            .map(|f| f.proxy.map_or(0.0, |c| c.compute() as f64))
            .collect();
        md.push_str(&format!("| {} | {:.1}% |\n", u.name, 100.0 * wmape(&p, &y)));
        let g = by_group.entry(group_of(&u.name)).or_default();
        g.0.extend(&p);
        g.1.extend(&y);
        all_p.extend(p);
        all_y.extend(y);
    }
    let mut js = serde_json::Map::new();
    for g in GROUPS {
        if let Some((p, y)) = by_group.get(g) {
            let w = wmape(p, y);
            md.push_str(&format!("| {g} NFs | {:.1}% |\n", 100.0 * w));
            js.insert(g.to_string(), serde_json::json!(w));
        }
    }
    let overall = wmape(&all_p, &all_y);
    js.insert("overall".into(), serde_json::json!(overall));
    md.push_str(&format!("| **overall** | **{:.1}%** |\n", 100.0 * overall));
    Ok((m, md, serde_json::Value::Object(js)))
}

/// The fresh held-out sets read after a run (their misses were designed
/// against), which signal development may look at.
const TAINTED: &[&str] = &[
    "fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7", "fresh8", "fresh9",
    "fresh10", "fresh11",
];
/// Every fresh held-out set; the last is clean until its single run.
const ALL_FRESH: &[&str] = &[
    "fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7", "fresh8", "fresh9",
    "fresh10", "fresh11", "fresh12",
];

/// The fresh held-out sets to score, by directory name (`fresh` …
/// `fresh7`): a set left out is not even classified, so a clean set's
/// results are not seen while signals are developed or before the model is
/// frozen.
fn accel(out: &Path, scored: &[&str]) -> anyhow::Result<(serde_json::Value, String)> {
    let corpus_dir = Some(
        std::env::var_os("NFC_CORPUS_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("/var/tmp/nfc-corpus")),
    );
    let lowering = std::time::Instant::now();
    let c = nfc::insight::accel_corpus(corpus_dir.as_deref());
    let lowering = lowering.elapsed();
    for f in &c.failures {
        eprintln!("failed to lower: {f}");
    }
    let negatives = nfc::insight::accel_negatives(80);
    let model = nfc::insight::train_accel_model(&c, &negatives);
    let train_functions = c.train.iter().map(|(_, _, u)| own(u).len()).sum::<usize>();
    // How often each value-level signal fires per training class (synthesised negatives apart).
    let mut prevalence = String::from("| training set | functions | poly xor + shift-1 loop | table[(x^y)&0xff] ^ | rotation | mul const | fold16 | halving loop | masked compare loop | key-bits index loop | prefix mask | walk loop | ARX mix | best-so-far loop | two-level table | keyed walk | exact-match exit | shorten and retry | table step, register alone | xor equations | first-match exit in walk | covering stack |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    let groups: Vec<(String, Vec<&nfc_core::insight::IrFunction>)> = AccelKind::ALL
        .iter()
        .map(|k| {
            (
                k.name().to_string(),
                c.train
                    .iter()
                    .filter(|(_, kk, _)| kk == k)
                    .flat_map(|(_, _, u)| own(u))
                    .collect(),
            )
        })
        .chain(std::iter::once((
            "synthesised (none)".to_string(),
            negatives.units.iter().flat_map(own).collect(),
        )))
        .collect();
    if std::env::var_os("ACCEL_DEBUG").is_some() {
        for (stem, k, u) in &c.train {
            for f in own(u) {
                eprintln!("{} {stem}::{} {:?}", k.name(), f.name, f.signals);
            }
        }
    }
    for (name, fs) in &groups {
        let n = |p: &dyn Fn(&nfc_core::insight::AccelSignals) -> bool| {
            fs.iter().filter(|f| p(&f.signals)).count()
        };
        prevalence.push_str(&format!(
            "| {name} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            fs.len(),
            n(&|s| s.xor_poly_in_loop > 0 && s.shift1_in_loop > 0),
            n(&|s| s.table_xor_index > 0),
            n(&|s| s.rotate_const > 0),
            n(&|s| s.mul_large_const > 0),
            n(&|s| s.fold16 > 0),
            n(&|s| s.halving_in_loop > 0),
            n(&|s| s.masked_compare_in_loop > 0),
            n(&|s| s.key_bits_index_in_loop > 0),
            n(&|s| s.prefix_mask > 0),
            n(&|s| s.walk_in_loop > 0),
            n(&|s| s.arx_mix > 0),
            n(&|s| s.best_update_in_loop > 0),
            n(&|s| s.two_level_lookup > 0),
            n(&|s| s.keyed_walk_in_loop > 0),
            n(&|s| s.exact_match_exit_in_loop > 0),
            n(&|s| s.shorten_retry_in_loop > 0),
            n(&|s| s.table_register_step > 0),
            n(&|s| s.xor_equations > 0),
            n(&|s| s.first_match_exit_in_walk > 0),
            n(&|s| s.covering_stack_in_walk > 0),
        ));
    }

    let mut test: Vec<(String, Labelled<'_>)> = c
        .test
        .iter()
        .flat_map(|(s, k, u)| {
            own(u).into_iter().map(move |f| {
                (
                    format!("{s}::{}", f.name),
                    Labelled {
                        function: f,
                        kind: *k,
                    },
                )
            })
        })
        .collect();
    let mut real: Vec<(String, Labelled<'_>)> = vec![];
    for (file, u, labels) in &c.real {
        for (name, kind) in labels {
            if let Some(f) = u.functions.iter().find(|f| &f.name == name) {
                real.push((
                    format!("{file}::{name}"),
                    Labelled {
                        function: f,
                        kind: *kind,
                    },
                ));
            }
        }
    }
    if std::env::var_os("ACCEL_DEBUG").is_some() {
        for (n, l) in test.iter().chain(&real) {
            let v = model.classify(l.function);
            if v.kind != l.kind {
                let x = model.features_of(l.function);
                let k = if v.kind == AccelKind::None {
                    l.kind
                } else {
                    v.kind
                };
                let (w, b) = &model.svm[&k];
                let mut c: Vec<(f64, &String)> = x
                    .iter()
                    .zip(w)
                    .map(|(a, b)| a * b)
                    .zip(&model.features)
                    .collect();
                c.sort_by(|a, b| b.0.total_cmp(&a.0));
                eprintln!("{n} -> {:?} bias {b:.2}: {:?}", v.kind, &c[..6]);
            }
        }
    }
    // The fresh held-out sets (each labelled and committed before its
    // first run), only those asked for.
    let fresh: Vec<(&str, Vec<(String, Labelled<'_>)>)> = c
        .fresh_sets()
        .into_iter()
        .filter(|(set, _)| scored.contains(set))
        .map(|(set, units)| {
            let mut rows = vec![];
            for (file, u, labels) in units {
                for (name, kind) in labels {
                    if let Some(f) = u.functions.iter().find(|f| &f.name == name) {
                        rows.push((
                            format!("{file}::{name}"),
                            Labelled {
                                function: f,
                                kind: *kind,
                            },
                        ));
                    }
                }
            }
            (set, rows)
        })
        .collect();
    if std::env::var_os("ACCEL_DEBUG").is_some() {
        // The tainted sets only (read after their runs).
        for (set, rows) in fresh.iter().filter(|(s, _)| TAINTED.contains(s)) {
            for (n, l) in rows {
                eprintln!(
                    "{set} {} {n} -> {:?} {:?} {:?}",
                    l.kind.name(),
                    model.classify(l.function).kind,
                    l.function.behaviour,
                    l.function.signals
                );
            }
        }
    }
    let fresh_evals: Vec<(&str, nfc_smartnic::accel::AccelEvaluation)> = fresh
        .iter()
        .map(|(set, rows)| (*set, evaluate(&model, rows)))
        .collect();
    let own_eval = evaluate(&model, &test);
    test.extend(real.iter().cloned());
    let all_eval = evaluate(&model, &test);
    let real_eval = evaluate(&model, &real);
    // Built-in NFs: nothing is labelled; report what is flagged.
    let nfs =
        nfc::insight::builtin_nfs(&PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/nfs")));
    let mut flagged = vec![];
    for u in &nfs.units {
        for f in u.functions.iter().filter(|f| !f.framework) {
            let v = model.classify(f);
            if v.kind != AccelKind::None {
                flagged.push(serde_json::json!({"nf": u.name, "function": f.name, "kind": v.kind, "confidence": v.confidence, "signals": f.signals}));
            }
        }
    }
    let table = |e: &nfc_smartnic::accel::AccelEvaluation| {
        let mut s = String::from("| actual \\ predicted | crc | lpm | none |\n|---|---|---|---|\n");
        for (i, k) in AccelKind::ALL.iter().enumerate() {
            s.push_str(&format!(
                "| {} | {} | {} | {} |\n",
                k.name(),
                e.confusion[i][0],
                e.confusion[i][1],
                e.confusion[i][2]
            ));
        }
        s
    };
    let mut cv_md = format!("Model selection: 5-fold cross-validation grouped by file within the training set (held-out files never seen); chosen: feature set `{}`, λ {}.\n\n| feature set | λ | CV precision | CV recall | CV F1 |\n|---|---|---|---|---|\n", model.cv.first().map_or("", |c| c.set.name()), model.lambda);
    for c in &model.cv {
        cv_md.push_str(&format!(
            "| {} | {} | {:.3} | {:.3} | {:.3} |\n",
            c.set.name(),
            c.lambda,
            c.precision,
            c.recall,
            c.f1
        ));
    }
    let mut misses = format!("{cv_md}\nValue-level signals in the training functions (functions where each fires):\n\n{prevalence}\n{} training functions ({} mined patterns), {} held-out own and {} held-out real (DPDK) functions.\n\nMisclassified held-out functions:\n\n", train_functions, model.patterns.len(), own_eval.rows.len(), real_eval.rows.len());
    push_misclassified(&mut misses, &all_eval, &test);
    for ((set, e), (_, rows)) in fresh_evals.iter().zip(&fresh) {
        misses.push_str(&format!(
            "\n#### Fresh held-out set `{set}` ({}; `data/accel/{set}/labels.txt`)\n\n{} functions: precision {:.3}, recall {:.3}\n\n{}\nMisclassified:\n\n",
            if TAINTED.contains(set) {
                "tainted: read after its run"
            } else {
                "labelled and committed before its first run"
            },
            e.rows.len(),
            e.precision,
            e.recall,
            table(e)
        ));
        push_misclassified(&mut misses, e, rows);
        misses.push_str(&behaviour_summary(rows));
    }
    let n_functions: usize = c
        .train
        .iter()
        .chain(&c.test)
        .map(|u| u.2.functions.len())
        .sum::<usize>()
        + c.fresh_sets()
            .iter()
            .flat_map(|(_, us)| us.iter())
            .map(|u| u.1.functions.len())
            .sum::<usize>()
        + c.real.iter().map(|u| u.1.functions.len()).sum::<usize>();
    misses.push_str(&format!(
        "\nLowering the accelerator corpus with the behavioural CRC test: {:.1} s for {n_functions} functions ({:.0} ms per function, lowering included).\n",
        lowering.as_secs_f64(),
        1000.0 * lowering.as_secs_f64() / n_functions.max(1) as f64
    ));
    misses.push_str(&format!(
        "\nBuilt-in NF functions flagged (unlabelled; for inspection): {}\n",
        flagged.len()
    ));
    for f in &flagged {
        misses.push_str(&format!("- {f}\n"));
    }
    let body = serde_json::json!({
        "train_functions": train_functions,
        "patterns": model.patterns.len(),
        "heldout_own": own_eval,
        "heldout_real": real_eval,
        "heldout_all": all_eval,
        "nf_flagged": flagged,
        "failures": c.failures,
    });
    let mut body = body;
    for (set, e) in &fresh_evals {
        body[*set] = serde_json::to_value(e)?;
    }
    std::fs::write(out.join("accel.json"), serde_json::to_vec_pretty(&body)?)?;
    std::fs::write(
        out.join("accel-model.json"),
        serde_json::to_vec_pretty(&model)?,
    )?;
    Ok((
        body,
        format!(
            "Old held-out set (41 functions: own + DPDK): precision {:.3}, recall {:.3}; own {:.3} / {:.3}; DPDK {:.3} / {:.3}\n\n{}",
            all_eval.precision,
            all_eval.recall,
            own_eval.precision,
            own_eval.recall,
            real_eval.precision,
            real_eval.recall,
            table(&all_eval),
        ) + "\n"
            + &misses,
    ))
}

/// The behavioural CRC test's outcomes on a labelled set, by label.
fn behaviour_summary(rows: &[(String, Labelled<'_>)]) -> String {
    use nfc_core::insight::Behaviour;
    let mut s = String::from(
        "\nBehavioural CRC test (label: crc proven / affine / not affine / not executable):\n\n",
    );
    for k in AccelKind::ALL {
        let mut n = [0usize; 4];
        for (_, l) in rows.iter().filter(|(_, l)| l.kind == k) {
            n[match l.function.behaviour {
                Some(Behaviour::Crc { .. }) => 0,
                Some(Behaviour::Affine { .. }) => 1,
                Some(Behaviour::NotAffine) => 2,
                _ => 3,
            }] += 1;
        }
        s.push_str(&format!(
            "- {}: {} / {} / {} / {}\n",
            k.name(),
            n[0],
            n[1],
            n[2],
            n[3]
        ));
    }
    for (name, l) in rows {
        if let Some(b @ Behaviour::Crc { .. }) = &l.function.behaviour {
            if l.kind != AccelKind::Crc {
                s.push_str(&format!(
                    "- proven CRC but labelled {}: {name} ({b:?})\n",
                    l.kind.name()
                ));
            }
        }
    }
    s
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out = root.join("target/nfc-bench/insight");
    std::fs::create_dir_all(&out)?;
    if args.first().map(String::as_str) == Some("models") {
        // Train the models `nfc insight` ships and write them into the crate's data.
        let n: usize = args.get(1).map(|s| s.parse()).transpose()?.unwrap_or(400);
        let train = nfc::insight::synthesise(&Profile::nf_like(), n, 1, 2);
        anyhow::ensure!(train.failures.is_empty(), "{:?}", train.failures);
        let held = nfc::insight::builtin_nfs(&root.join("nfs"));
        let (cost, md, _) = word_cost(&train.units, &held.units, &[])?;
        println!("{md}");
        // Never the clean fresh set: the shipped model is refitted here,
        // and a clean set is scored only by `-- accel` once the model is
        // frozen.
        let (_, acc_md) = accel(&out, TAINTED)?;
        println!("{acc_md}");
        let data = root.join("crates/smartnic/data/insight");
        std::fs::create_dir_all(&data)?;
        std::fs::copy(out.join("accel-model.json"), data.join("accel-model.json"))?;
        std::fs::write(
            data.join("word-cost-model.json"),
            serde_json::to_string_pretty(&cost)? + "\n",
        )?;
        return Ok(());
    }
    if args.first().map(String::as_str) == Some("diagnose") {
        // The generator-vs-real-NF shift alone (no training).
        let n: usize = args.get(1).map(|s| s.parse()).transpose()?.unwrap_or(200);
        let held = nfc::insight::builtin_nfs(&root.join("nfs"));
        let mut gens = vec![];
        // The sixteenth session's generator is today's without XDP programs.
        let mut before = Profile::nf_like().without_xdp();
        before.name = "nf-like-no-xdp";
        for p in [
            Profile::nf_like(),
            before,
            Profile::nf_like_v1(),
            Profile::naive(),
        ] {
            let l = nfc::insight::synthesise(&p, n, 1, 2);
            anyhow::ensure!(
                l.failures.is_empty(),
                "{}: {:?}",
                p.name,
                &l.failures[..l.failures.len().min(3)]
            );
            gens.push((p.name, l.units));
        }
        println!("{}", shift_report(&held.units, &gens).1);
        return Ok(());
    }
    if args.first().map(String::as_str) == Some("probe") {
        // The length diagnosis's data, no held-out NF involved: the bench's
        // `n` training programs (same generator and seeds as `dataset`) and
        // `m` newly synthesised long programs (the NF-like generator with
        // `k`× its statements per body, seeds no training run uses), each
        // with its shape; `nfc-predict insight train --heldout probe.json`
        // then scores the models on them.
        let n: usize = args.get(1).map(|s| s.parse()).transpose()?.unwrap_or(200);
        let m: usize = args.get(2).map(|s| s.parse()).transpose()?.unwrap_or(60);
        let k: usize = args.get(3).map(|s| s.parse()).transpose()?.unwrap_or(4);
        let dir = out.join("probe");
        std::fs::create_dir_all(&dir)?;
        let train = nfc::insight::synthesise(&Profile::nf_like(), n, 1, 2);
        anyhow::ensure!(train.failures.is_empty(), "{:?}", train.failures);
        let mut long = Profile::nf_like();
        long.name = "nf-like-long";
        long.stmts = (long.stmts.0 * k, long.stmts.1 * k);
        let probe = nfc::insight::synthesise(&long, m, PROBE_SEED, 2);
        // Words the training programs lack: the naive generator's generic
        // integer code (its programs' names say which probe a row is).
        let naive = nfc::insight::synthesise(&Profile::naive(), m / 2, PROBE_SEED, 2);
        for f in probe.failures.iter().chain(&naive.failures).take(3) {
            eprintln!("  probe failure: {f}");
        }
        let mut all = probe.units.clone();
        all.extend(naive.units.iter().cloned());
        std::fs::write(dir.join("train.json"), serde_json::to_vec(&train.units)?)?;
        std::fs::write(dir.join("probe.json"), serde_json::to_vec(&all)?)?;
        let fns = |u: &[nfc_core::insight::IrUnit]| -> Vec<nfc_core::insight::IrFunction> {
            u.iter().flat_map(|x| own(x).into_iter().cloned()).collect()
        };
        for (name, u) in [
            ("training", &train.units),
            ("long probe", &probe.units),
            ("naive probe", &naive.units),
        ] {
            let s = nfc_smartnic::similarity::shape(&fns(u));
            println!(
                "{name}: {} programs, {} functions, {:.1} words/fn (p90 {:.0}), {:.1} blocks/fn, {:.2} words/block, {:.2} proxy instr/word",
                u.len(), s.functions, s.words_per_function, s.words_per_function_p90,
                s.blocks_per_function, s.words_per_block, s.proxy_per_word
            );
        }
        println!(
            "probe lowering failures: {} long, {} naive",
            probe.failures.len(),
            naive.failures.len()
        );
        return Ok(());
    }
    if args.first().map(String::as_str) == Some("xdp-guide") {
        // The generator's design guide (seventeenth session): XDP programs
        // of xdp-tools that no held-out unit uses, lowered as the corpus
        // is, compared with the bench's `n` training programs. Only the
        // functions each file itself defines count (shared headers'
        // helpers are part of held-out units too).
        let n: usize = args.get(1).map(|s| s.parse()).transpose()?.unwrap_or(200);
        // The sixteenth session's generator is today's without XDP programs.
        let before = Profile::nf_like().without_xdp();
        let mut sets = vec![];
        for p in [before, Profile::nf_like(), Profile::naive()] {
            let (m, seed) = if p.name == "naive" {
                (n / 3, 1_000_000)
            } else {
                (n, 1)
            };
            let l = nfc::insight::synthesise(&p, m, seed, 2);
            for f in l.failures.iter().take(3) {
                eprintln!("  {} failure: {f}", p.name);
            }
            anyhow::ensure!(
                l.failures.is_empty(),
                "{}: {} failures",
                p.name,
                l.failures.len()
            );
            sets.push(l.units);
        }
        let guide = xdp_guide()?;
        let names = [
            "nf-like without XDP (16th)",
            "nf-like with XDP (17th)",
            "naive",
        ];
        let gens: Vec<(&str, &Units)> = names.into_iter().zip(&sets).collect();
        println!("{}", guide_report(&guide, &gens));
        return Ok(());
    }
    if args.first().map(String::as_str) == Some("word-cost") {
        // The per-word cost model's rows alone (the full bench's section):
        // fitted on `n` synthesised programs, scored on the held-out NFs.
        let n: usize = args.get(1).map(|s| s.parse()).transpose()?.unwrap_or(400);
        let train = nfc::insight::synthesise(&Profile::nf_like(), n, 1, 2);
        anyhow::ensure!(train.failures.is_empty(), "{:?}", train.failures);
        let h = held_out(&root);
        let (_, md, _) = word_cost(&train.units, &h.units, &h.group)?;
        println!("{md}");
        return Ok(());
    }
    if args.first().map(String::as_str) == Some("heldout") {
        // Lower the held-out NFs and list them by group with their
        // functions; no model is trained or applied (the held-out set is
        // registered from this list before any model scores it).
        let h = held_out(&root);
        for (u, (_, g)) in h.units.iter().zip(&h.group) {
            let fs: Vec<&str> = own(u)
                .into_iter()
                .filter(|f| !f.is_empty() && f.proxy.is_some())
                .map(|f| f.name.as_str())
                .collect();
            println!("{g} {}: {} functions: {}", u.name, fs.len(), fs.join(" "));
        }
        println!("{}", lowering_md(&h));
        return Ok(());
    }
    if args.first().map(String::as_str) == Some("accel") {
        // Only the accelerator classifier (fast; no lowering of training
        // programs), scored on every held-out set.
        let (_, md) = accel(&out, ALL_FRESH)?;
        println!("{md}");
        return Ok(());
    }
    if args.first().map(String::as_str) == Some("accel-dev") {
        // The same without the fresh held-out sets (signal development).
        let (_, md) = accel(&out, &[])?;
        println!("{md}");
        return Ok(());
    }
    if args.first().map(String::as_str) == Some("accel-tainted") {
        // Signal development on the old set and the tainted fresh sets (all
        // read after a run); never the clean one.
        let (_, md) = accel(&out, TAINTED)?;
        println!("{md}");
        return Ok(());
    }
    if args.first().map(String::as_str) == Some("accel-lower") {
        // Lower the accelerator corpus and the fresh sets and list what
        // each fresh file holds against its labels; no model is trained or
        // applied (a new held-out set is checked this way before its labels
        // are committed).
        let corpus = std::env::var_os("NFC_CORPUS_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("/var/tmp/nfc-corpus"));
        // `accel-lower <set> [--functions]`: that fresh set alone (and
        // each function's size and words).
        if let Some(set) = args.get(1) {
            let (units, failures) = nfc::insight::fresh_set_only(Some(&corpus), set);
            for (file, u, labels) in &units {
                print_fresh_file(set, file, u, labels);
                match args.get(2).map(String::as_str) {
                    Some("--functions") => print_functions(file, u),
                    Some("--signals") => print_signals(file, u),
                    _ => {}
                }
            }
            for f in &failures {
                println!("failure: {f}");
            }
            anyhow::ensure!(failures.is_empty(), "{} failures", failures.len());
            return Ok(());
        }
        let c = nfc::insight::accel_corpus(Some(&corpus));
        for (set, units) in c.fresh_sets() {
            for (file, u, labels) in units {
                print_fresh_file(set, file, u, labels);
            }
        }
        for f in &c.failures {
            println!("failure: {f}");
        }
        anyhow::ensure!(c.failures.is_empty(), "{} failures", c.failures.len());
        return Ok(());
    }
    let n: usize = args.first().map(|s| s.parse()).transpose()?.unwrap_or(400);
    // `insight_bench N select`: every model's budget chosen on the
    // validation programs (`nfc-predict insight train --select`).
    let select = args.get(1).map(String::as_str) == Some("select");
    let epochs: usize = if select {
        30
    } else {
        args.get(1).map(|s| s.parse()).transpose()?.unwrap_or(10)
    };
    let (sim, train_units, heldout, _builtins, shift_md) = dataset(&out, n)?;
    let (cost, cost_md, cost_groups) = word_cost(&train_units, &heldout.units, &heldout.group)?;
    // INSIGHT_NO_FRESH=1: leave the fresh held-out set out (a run made while
    // the accelerator signals are still being developed).
    let fresh = std::env::var_os("INSIGHT_NO_FRESH").is_none();
    // INSIGHT_NO_ACCEL=1: leave the accelerator section out, so that the
    // compute comparison runs end to end through this same table code
    // without the classifier's quarter hour (its JSON keys are then null).
    let (acc, acc_md) = if std::env::var_os("INSIGHT_NO_ACCEL").is_some() {
        (
            serde_json::Value::Null,
            "Not run (`INSIGHT_NO_ACCEL=1`).".to_string(),
        )
    } else {
        accel(&out, if fresh { ALL_FRESH } else { &[] })?
    };
    // The networks: nfc-predict (libtorch) in its own process.
    let t0 = std::time::Instant::now();
    // NFC_PREDICT_BIN: a prebuilt nfc-predict (a long run must not rebuild
    // it from a worktree that changes meanwhile); else `cargo run`.
    let mut cmd = match std::env::var_os("NFC_PREDICT_BIN") {
        Some(bin) => Command::new(bin),
        None => {
            let mut c = Command::new("cargo");
            c.args(["run", "--release", "-q", "-p", "nfc-predict", "--"]);
            c
        }
    };
    let status = cmd
        .args(["--format", "json", "insight", "train"])
        .args(if select {
            vec!["--select".to_string()]
        } else {
            vec!["--epochs".to_string(), epochs.to_string()]
        })
        .arg("--synth")
        .arg(out.join("train.json"))
        .arg("--heldout")
        .arg(out.join("heldout.json"))
        .arg("--out")
        .arg(out.join("models"))
        .current_dir(&root)
        .stdout(std::process::Stdio::null())
        .status()?;
    anyhow::ensure!(status.success(), "nfc-predict insight train failed");
    let eval: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("models/evaluation.json"))?)?;
    let e = &eval["evaluation"];
    let models = ["LSTM", "DNN", "CNN", "GBDT"];
    let mut md = format!("## SmartNIC insight (Clara §3, §4.1) on the proxy ISA (riscv32, llc-19 -O2)\n\n{n} synthesised NF-like programs ({} training / {} validation functions, split by program), {}, vocabulary {} words; held-out (never trained on): the built-in NFs, the real-world corpus units and the Click elements that lower for the proxy target ({} NFs). Training took {:.0} s.\n\n### WMAPE per held-out NF (compute instructions per function)\n\n| NF | group | functions | proxy instructions | LSTM | DNN | CNN | GBDT | memory IR / proxy |\n|---|---|---|---|---|---|---|---|---|\n",
        e["train_functions"], e["val_functions"], if select { format!("budget chosen on validation (up to {} epochs, early stopping with patience {}, learning-rate schedule, hidden {}; GBDT grid; LSTM `{}`)", eval["config"]["epochs"], eval["config"]["patience"], eval["config"]["hidden_grid"], lstm_spec(&eval["config"]["lstm"])) } else { format!("{epochs} epochs") }, e["vocabulary"], heldout.units.len(), t0.elapsed().as_secs_f64());
    let group_of = |nf: &str| {
        heldout
            .group
            .iter()
            .find(|g| g.0 == nf)
            .map_or("?", |g| g.1)
    };
    for r in e["per_nf"].as_array().into_iter().flatten() {
        let nf = r["nf"].as_str().unwrap_or("");
        md.push_str(&format!(
            "| {nf} | {} | {} | {} |",
            group_of(nf),
            r["functions"],
            r["instructions"]
        ));
        for m in models {
            md.push_str(&format!(
                " {:.1}% |",
                100.0 * r["wmape"][m].as_f64().unwrap_or(f64::NAN)
            ));
        }
        md.push_str(&format!(" {} / {} |\n", r["memory_ir"], r["memory_proxy"]));
    }
    // Per group, pooled over the group's functions (Σ|ŷ−y| / Σy), from the
    // per-NF rows: WMAPE × Σy is the NF's absolute error.
    let rows: Vec<&serde_json::Value> = e["per_nf"].as_array().into_iter().flatten().collect();
    let mut groups_js = serde_json::Map::new();
    for g in GROUPS {
        let in_g: Vec<&&serde_json::Value> = rows
            .iter()
            .filter(|r| group_of(r["nf"].as_str().unwrap_or("")) == g)
            .collect();
        if in_g.is_empty() {
            continue;
        }
        let fns: u64 = in_g
            .iter()
            .map(|r| r["functions"].as_u64().unwrap_or(0))
            .sum();
        let instr: f64 = in_g
            .iter()
            .map(|r| r["instructions"].as_f64().unwrap_or(0.0))
            .sum();
        md.push_str(&format!(
            "| **{g} NFs ({})** | | {fns} | {instr} |",
            in_g.len()
        ));
        let mut w = serde_json::Map::new();
        for m in models {
            let v = pooled(
                &in_g
                    .iter()
                    .map(|r| {
                        (
                            r["instructions"].as_f64().unwrap_or(0.0),
                            r["wmape"][m].as_f64().unwrap_or(f64::NAN),
                        )
                    })
                    .collect::<Vec<_>>(),
            );
            md.push_str(&format!(" {:.1}% |", 100.0 * v));
            w.insert(m.to_string(), serde_json::json!(v));
        }
        let (mi, mp): (f64, f64) = in_g.iter().fold((0.0, 0.0), |(a, b), r| {
            let (x, y) = (
                r["memory_ir"].as_f64().unwrap_or(0.0),
                r["memory_proxy"].as_f64().unwrap_or(0.0),
            );
            (a + (x - y).abs(), b + y)
        });
        let mem = 1.0 - mi / mp;
        md.push_str(&format!(" accuracy {:.1}% |\n", 100.0 * mem));
        groups_js.insert(
            g.to_string(),
            serde_json::json!({"nfs": in_g.len(), "functions": fns, "instructions": instr, "wmape": w, "memory_accuracy": mem}),
        );
    }
    md.push_str("| **overall (all held-out functions)** | | | |");
    for m in models {
        md.push_str(&format!(
            " **{:.1}%** |",
            100.0 * e["overall"][m].as_f64().unwrap_or(f64::NAN)
        ));
    }
    md.push_str(&format!(
        " accuracy {:.1}% |\n\nValidation WMAPE (chosen epoch): {}\n\n",
        100.0 * e["memory_accuracy"].as_f64().unwrap_or(f64::NAN),
        e["validation"]
    ));
    if let Some(sel) = e["selection"].as_object().filter(|m| !m.is_empty()) {
        md.push_str("Selection on the validation programs (every model alike; kept: the lowest validation WMAPE):\n\n| model | candidate | epoch kept | validation WMAPE |\n|---|---|---|---|\n");
        for (m, cands) in sel {
            for c in cands.as_array().into_iter().flatten() {
                md.push_str(&format!(
                    "| {m} | {} | {} | {:.2}% |\n",
                    c["params"].as_str().unwrap_or(""),
                    c["epoch"],
                    100.0 * c["val_wmape"].as_f64().unwrap_or(f64::NAN)
                ));
            }
        }
        md.push('\n');
    }
    md.push_str("### Generator similarity to the real NFs' IR opcode mix (Table 1; smaller is closer)\n\n| metric | NF-like generator | NF-like v1 (first session) | naive generator |\n|---|---|---|---|\n");
    for key in [
        "jensen_shannon",
        "renyi2",
        "bhattacharyya",
        "cosine",
        "euclidean",
        "variational",
    ] {
        md.push_str(&format!(
            "| {key} | {:.4} | {:.4} | {:.4} |\n",
            sim["nf_like"][key].as_f64().unwrap_or(f64::NAN),
            sim["nf_like_v1"][key].as_f64().unwrap_or(f64::NAN),
            sim["naive"][key].as_f64().unwrap_or(f64::NAN)
        ));
    }
    md.push_str(&format!(
        "\n### Generator vs real NFs: metrics on opcodes and whole words, shapes, largest word shifts\n\n{shift_md}\n"
    ));
    md.push_str(&format!(
        "\n### Per-word linear cost model (`nfc insight`'s default, no libtorch)\n\n{cost_md}\n"
    ));
    md.push_str(&format!(
        "\n### Held-out NFs: what lowered for the proxy target\n\n{}\n",
        lowering_md(&heldout)
    ));
    md.push_str(&format!(
        "\n### Accelerator identification (CRC / LPM / none)\n\n{acc_md}\n"
    ));
    let lowering: serde_json::Map<String, serde_json::Value> = heldout
        .lowering
        .iter()
        .map(|(g, ok, failed)| {
            (
                g.to_string(),
                serde_json::json!({"lowered": ok, "failed": failed}),
            )
        })
        .collect();
    let report = serde_json::json!({ "similarity": sim, "compute": eval, "compute_groups": groups_js.clone(), "heldout_lowering": lowering, "accelerators": acc, "word_cost": { "l2": cost.l2, "val_wmape": cost.val_wmape, "words": cost.words.len(), "groups": cost_groups } });
    std::fs::write(out.join("report.md"), &md)?;
    std::fs::write(out.join("report.json"), serde_json::to_vec_pretty(&report)?)?;
    println!("{md}");
    println!(
        "{}",
        serde_json::to_string(&serde_json::json!({
            "wmape_overall": e["overall"], "wmape_groups": groups_js, "similarity": sim, "accel_precision": acc["heldout_all"]["precision"], "accel_recall": acc["heldout_all"]["recall"],
            "accel_fresh2_precision": acc["fresh2"]["precision"], "accel_fresh2_recall": acc["fresh2"]["recall"],
            "accel_fresh3_precision": acc["fresh3"]["precision"], "accel_fresh3_recall": acc["fresh3"]["recall"],
            "accel_fresh4_precision": acc["fresh4"]["precision"], "accel_fresh4_recall": acc["fresh4"]["recall"],
            "accel_fresh5_precision": acc["fresh5"]["precision"], "accel_fresh5_recall": acc["fresh5"]["recall"],
            "accel_fresh6_precision": acc["fresh6"]["precision"], "accel_fresh6_recall": acc["fresh6"]["recall"],
            "accel_fresh7_precision": acc["fresh7"]["precision"], "accel_fresh7_recall": acc["fresh7"]["recall"],
            "accel_fresh8_precision": acc["fresh8"]["precision"], "accel_fresh8_recall": acc["fresh8"]["recall"],
            "accel_fresh9_precision": acc["fresh9"]["precision"], "accel_fresh9_recall": acc["fresh9"]["recall"],
        }))?
    );
    Ok(())
}

/// The LSTM architecture of a saved `TrainConfig` as `nfc-predict --lstm` reads it.
/// (A copy of `LstmShape::spec`: this example does not link the predictor,
/// which would bring libtorch into every `nfc` build.)
fn lstm_spec(l: &serde_json::Value) -> String {
    let mut parts = vec![if l["function_sequence"].as_bool() == Some(true) {
        "function"
    } else {
        "block"
    }
    .to_string()];
    if l["bidirectional"].as_bool() == Some(true) {
        parts.push("bidir".into());
    }
    match l["layers"].as_i64() {
        Some(n) if n != 1 => parts.push(format!("layers{n}")),
        _ => {}
    }
    match l["embed"].as_i64() {
        Some(n) if n > 0 => parts.push(format!("embed{n}")),
        _ => {}
    }
    if l["block_readout"].as_bool() == Some(true) {
        parts.push("block-readout".into());
    }
    match l["unknown_pct"].as_i64() {
        Some(n) if n > 0 => parts.push(format!("unk{n}")),
        _ => {}
    }
    parts.join(",")
}

/// One line per misclassified function of `eval` (rows in the order of
/// `set`), with the signals that drove it.
fn push_misclassified(
    out: &mut String,
    eval: &nfc_smartnic::accel::AccelEvaluation,
    set: &[(String, Labelled<'_>)],
) {
    for ((n, a, p, conf), (_, l)) in eval.rows.iter().zip(set) {
        if a != p {
            out.push_str(&format!(
                "- `{n}`: actual {}, predicted {} (confidence {conf:.2}); signals {:?}\n",
                a.name(),
                p.name(),
                l.function.signals
            ));
        }
    }
}
