//! SmartNIC insight data (Clara §3, issue 19): synthesised training programs
//! and the held-out real NFs, each lowered by `nfc_reducer::insight_ir` to
//! annotated proxy-target IR with the proxy compiler's per-function counts.
//! The sequence models train in `nfc-predict` (libtorch); this module only
//! produces their plain-data input.

use nfc_core::insight::IrUnit;
use nfc_reducer::insight_ir::{self, InsightOptions};
use nfc_smartnic::accel::{AccelKind, AccelModel, Labelled, MiningConfig};
use nfc_smartnic::synth::{self, Profile};
use std::path::{Path, PathBuf};

/// Programs that did not lower (the generator must not produce any; counted, never hidden).
#[derive(Debug, Default, Clone)]
pub struct Lowered {
    pub units: Vec<IrUnit>,
    pub failures: Vec<String>,
}

/// Synthesise `n` programs with `profile` (seeds `seed..seed+n`) and lower
/// each for the proxy target, on `threads` threads (output order is by seed).
pub fn synthesise(profile: &Profile, n: usize, seed: u64, threads: usize) -> Lowered {
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => {
            return Lowered {
                units: vec![],
                failures: vec![format!("tempdir: {e}")],
            }
        }
    };
    let opts = InsightOptions::default();
    let threads = threads.max(1);
    let mut results: Vec<(usize, Result<IrUnit, String>)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let opts = &opts;
                let dir = dir.path();
                s.spawn(move || {
                    let mut out = vec![];
                    for i in (t..n).step_by(threads) {
                        let sd = seed + i as u64;
                        let name = format!("{}-{sd}", profile.name);
                        let path = dir.join(format!("{name}.c"));
                        let r = std::fs::write(&path, synth::generate(profile, sd))
                            .map_err(|e| e.to_string())
                            .and_then(|_| {
                                insight_ir::prepare_c(&name, &path, opts).map_err(|e| e.to_string())
                            });
                        out.push((i, r));
                    }
                    out
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    });
    results.sort_by_key(|(i, _)| *i);
    let mut l = Lowered::default();
    for (_, r) in results {
        match r {
            Ok(u) => l.units.push(u),
            Err(e) => l.failures.push(e),
        }
    }
    l
}

/// The built-in NFs (`nfs/<name>/<name>.c`, the fuzz harness excluded), lowered.
pub fn builtin_nfs(nfs_dir: &Path) -> Lowered {
    let mut l = Lowered::default();
    let Ok(rd) = std::fs::read_dir(nfs_dir) else {
        l.failures
            .push(format!("cannot read {}", nfs_dir.display()));
        return l;
    };
    let mut dirs: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    dirs.sort();
    let opts = InsightOptions::default();
    for d in dirs {
        let Some(name) = d.file_name().map(|n| n.to_string_lossy().into_owned()) else {
            continue;
        };
        let src = d.join(format!("{name}.c"));
        if !src.is_file() {
            continue;
        }
        match insight_ir::prepare_c(&name, &src, &opts) {
            Ok(u) => l.units.push(u),
            Err(e) => l.failures.push(e.to_string()),
        }
    }
    l
}

/// Lower one C file (corpus code, accelerator implementations) with extra
/// include directories; `proxy` also runs the proxy compiler.
pub fn lower_file(
    name: &str,
    src: &Path,
    extra_includes: &[PathBuf],
    proxy: bool,
) -> Result<IrUnit, String> {
    let mut opts = InsightOptions {
        proxy,
        ..InsightOptions::default()
    };
    opts.include_dirs.extend(extra_includes.iter().cloned());
    insight_ir::prepare_c(name, src, &opts).map_err(|e| e.to_string())
}

/// The accelerator corpus: implementations written for nfc
/// (`crates/smartnic/data/accel/{crc,lpm,none}/*.c`), each function labelled
/// by its directory, as (file stem, kind, unit); every third file of each
/// class (by name) is held out.
pub struct AccelCorpus {
    pub train: Vec<(String, AccelKind, IrUnit)>,
    pub test: Vec<(String, AccelKind, IrUnit)>,
    /// Real implementations (DPDK, from `$NFC_CORPUS_DIR`): test only, labelled per function.
    pub real: Vec<(String, IrUnit, Vec<(String, AccelKind)>)>,
    pub failures: Vec<String>,
}

/// Where the accelerator corpus lives.
pub fn accel_corpus_dir() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/crates/smartnic/data/accel"
    ))
}

pub fn accel_corpus(corpus_dir: Option<&Path>) -> AccelCorpus {
    let root = accel_corpus_dir();
    let mut c = AccelCorpus {
        train: vec![],
        test: vec![],
        real: vec![],
        failures: vec![],
    };
    for (dir, kind) in [
        ("crc", AccelKind::Crc),
        ("lpm", AccelKind::Lpm),
        ("none", AccelKind::None),
    ] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .map(|rd| {
                rd.filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|e| e == "c"))
                    .collect()
            })
            .unwrap_or_default();
        files.sort();
        for (i, f) in files.iter().enumerate() {
            let stem = f
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            match lower_file(&stem, f, &[], false) {
                Ok(u) => {
                    if i % 3 == 2 {
                        c.test.push((stem, kind, u));
                    } else {
                        c.train.push((stem, kind, u));
                    }
                }
                Err(e) => c.failures.push(e),
            }
        }
    }
    if let Some(corpus) = corpus_dir {
        let hash = corpus.join("dpdk/lib/hash");
        if hash.is_dir() {
            let shim = root.join("real/shim");
            for (file, label) in [
                ("dpdk_crc_sw.c", AccelKind::Crc),
                ("dpdk_jhash.c", AccelKind::None),
            ] {
                match lower_file(
                    file.trim_end_matches(".c"),
                    &root.join("real").join(file),
                    &[shim.clone(), hash.clone()],
                    false,
                ) {
                    Ok(u) => {
                        let labels = u
                            .functions
                            .iter()
                            .filter(|f| !f.name.starts_with("wrap_"))
                            .map(|f| (f.name.clone(), label))
                            .collect();
                        c.real.push((file.to_string(), u, labels));
                    }
                    Err(e) => c.failures.push(e),
                }
            }
        }
    }
    c
}

/// The synthesised NF-like programs the accelerator classifier trains on as
/// `none` (header parsing, tables, counters, checksum-like folds).
pub fn accel_negatives(n: usize) -> Lowered {
    synthesise(&Profile::nf_like(), n, 7_000_000, 2)
}

/// The accelerator classifier as the bench trains it: the corpus' training
/// files plus every function of `synth` ([`accel_negatives`]) as `none`,
/// mining and SVM with the default settings, seed 19.
pub fn train_accel_model(c: &AccelCorpus, synth: &Lowered) -> AccelModel {
    let mut train: Vec<Labelled<'_>> = vec![];
    for (_, kind, u) in &c.train {
        train.extend(
            u.functions
                .iter()
                .filter(|f| !f.framework)
                .map(|f| Labelled {
                    function: f,
                    kind: *kind,
                }),
        );
    }
    for u in &synth.units {
        train.extend(
            u.functions
                .iter()
                .filter(|f| !f.framework)
                .map(|f| Labelled {
                    function: f,
                    kind: AccelKind::None,
                }),
        );
    }
    AccelModel::train(&train, &MiningConfig::default(), 0.01, 19)
}
