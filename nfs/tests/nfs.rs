//! Integration tests of the NF library. Each test walks the whole catalog
//! and reports every failing NF at once:
//! - every NF builds with `-Wall -Wextra -Werror` and exports ABI v1 under
//!   its directory name;
//! - its facts.yaml agrees with the compiled code (state size, names);
//! - every example config is accepted and every malformed config in
//!   `tests/data/bad_configs.yaml` is rejected with a message naming its key;
//! - the NF's behavioural test (`<nf>/tests/test_<nf>.c`) and the generic
//!   robustness corpus (`tests/c/robust.c`) pass under ASan + UBSan;
//! - the generic libFuzzer harness (`fuzz/fuzz_nf.c`) runs a fixed number of
//!   executions per NF without a crash;
//! - the Click-style C++ elements compile and carry valid facts.

use nfc_core::facts::Field;
use nfc_net::abi as nf;
use nfc_nfs::{
    build, catalog, click_elements, include_dir, load_config, load_facts, nfs_root, BuildOptions,
    BuiltinNf,
};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use yaml_rust2::{Yaml, YamlLoader};

/// libFuzzer executions per NF (all 16 NFs together stay well under 90 s).
const FUZZ_RUNS: u32 = 60_000;

/// nf_init writes process-wide globals of a loaded NF: one caller at a time.
static DLOPEN_LOCK: Mutex<()> = Mutex::new(());

fn out_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("nfc-nfs")
}

fn clang_bin() -> PathBuf {
    nfc_nfs::clang().expect("clang-19 is required for the NF tests")
}

fn warn_opts() -> BuildOptions {
    BuildOptions {
        out_dir: out_dir().join("so"),
        sanitize: false,
        extra_cflags: vec!["-Wall".into(), "-Wextra".into(), "-Werror".into()],
    }
}

fn default_kv(nf: &BuiltinNf) -> Vec<(String, String)> {
    let path = nf
        .default_config()
        .unwrap_or_else(|| panic!("{}: no configs/default.yaml", nf.name));
    load_config(&path)
        .unwrap_or_else(|e| panic!("{e}"))
        .flatten()
}

/// Run a command; Err carries status and the tail of its output.
fn run(cmd: &mut Command) -> Result<String, String> {
    let shown = format!("{cmd:?}");
    let out = cmd.output().map_err(|e| format!("{shown}: {e}"))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if out.status.success() {
        Ok(text)
    } else {
        let tail: Vec<&str> = text.lines().rev().take(25).collect();
        Err(format!(
            "{shown}\n  exited with {}\n{}",
            out.status,
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        ))
    }
}

/// Compile a test executable from `extra` C files plus the NF's sources,
/// unless `out` was already built from the same source closure and flags
/// (the hash is kept beside it in `<out>.hash`).
fn compile_sanitized(
    nf: &BuiltinNf,
    extra: &[PathBuf],
    out: &Path,
    fuzzer: bool,
) -> Result<(), String> {
    use sha2::{Digest, Sha256};
    std::fs::create_dir_all(out.parent().unwrap()).map_err(|e| e.to_string())?;
    let mut inputs: Vec<PathBuf> = extra.to_vec();
    inputs.extend(nf.sources.iter().cloned());
    let mut h = Sha256::new();
    h.update([fuzzer as u8]);
    for f in nfc_nfs::source_closure(&inputs, &[include_dir(), nfs_root().join("tests/c")]) {
        h.update(f.to_string_lossy().as_bytes());
        h.update(std::fs::read(&f).map_err(|e| format!("{}: {e}", f.display()))?);
    }
    let hash = hex::encode(h.finalize());
    let stamp = out.with_extension("hash");
    if out.is_file() && std::fs::read_to_string(&stamp).is_ok_and(|s| s == hash) {
        return Ok(());
    }
    let mut cmd = Command::new(clang_bin());
    cmd.args([
        "-std=gnu11",
        "-g",
        "-O1",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-fno-omit-frame-pointer",
    ])
    .arg(if fuzzer {
        "-fsanitize=fuzzer,address,undefined"
    } else {
        "-fsanitize=address,undefined"
    })
    .arg("-fno-sanitize-recover=all")
    .arg("-I")
    .arg(include_dir())
    .arg("-I")
    .arg(nfs_root().join("tests/c"))
    .args(extra)
    .args(&nf.sources)
    .arg("-o")
    .arg(out);
    run(&mut cmd)?;
    std::fs::write(&stamp, hash).map_err(|e| e.to_string())
}

fn report(what: &str, failures: Vec<String>) {
    assert!(
        failures.is_empty(),
        "{what}: {} failure(s)\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

// ------------------------------------------------------------ dlopen side

/// A built NF loaded with dlopen (a private copy, through nfc-net's ABI mirror).
struct Loaded {
    entry: nf::EntryPoints,
    _lib: libloading::os::unix::Library,
}

impl Loaded {
    fn open(so: &Path) -> Loaded {
        let lib = nf::open_private(so, &std::env::temp_dir(), "nfs-test")
            .unwrap_or_else(|e| panic!("dlopen {}: {e}", so.display()));
        let entry =
            nf::EntryPoints::resolve(&lib).unwrap_or_else(|e| panic!("{}: {e}", so.display()));
        Loaded { entry, _lib: lib }
    }

    fn describe(&self) -> (u32, String, u32) {
        // SAFETY: this object's nf_describe.
        let d = unsafe { nf::describe(self.entry.describe) }.unwrap();
        (d.abi_version, d.name.unwrap_or_default(), d.n_ports)
    }

    fn state_size(&self) -> usize {
        // SAFETY: this object's nf_state_size; it takes no arguments.
        unsafe { (self.entry.state_size)() }
    }

    /// nf_init with key/values; Err carries the NF's message.
    fn init(&self, kv: &[(String, String)]) -> Result<(), String> {
        let cfg = nf::OwnedConfig::new(kv).unwrap();
        // SAFETY: this object's nf_init.
        match unsafe { nf::init(self.entry.init, &cfg) } {
            Ok(()) => Ok(()),
            Err(nf::AbiError::Init { rc: -1, message }) => Err(message),
            Err(nf::AbiError::Init { rc, message }) => Err(format!(
                "nf_init returned {rc} (expected 0 or -1): {message}"
            )),
            Err(e) => Err(e.to_string()),
        }
    }
}

fn built(nf: &BuiltinNf) -> Result<nfc_nfs::BuiltNf, String> {
    build(&nf.name, &nf.sources, &warn_opts()).map_err(|e| e.to_string())
}

// ----------------------------------------------------------------- tests

#[test]
fn every_nf_builds_warning_free_and_exports_abi_v1() {
    let _g = DLOPEN_LOCK.lock().unwrap_or_else(|p| p.into_inner());
    let mut failures = vec![];
    let nfs = catalog();
    assert!(nfs.len() >= 16, "only {} NFs in the catalog", nfs.len());
    for nf in &nfs {
        let b = match built(nf) {
            Ok(b) => b,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        let ll = std::fs::read_to_string(&b.ll).unwrap_or_default();
        if !ll.contains("define") || !ll.contains("@nf_process") {
            failures.push(format!(
                "{}: {} has no nf_process definition",
                nf.name,
                b.ll.display()
            ));
        }
        let lib = Loaded::open(&b.so);
        let (abi, name, ports) = lib.describe();
        if abi != 1 || name != nf.name || ports == 0 {
            failures.push(format!(
                "{}: nf_describe gave abi {abi}, name {name:?}, n_ports {ports}",
                nf.name
            ));
        }
    }
    report("build", failures);
}

#[test]
fn facts_agree_with_the_compiled_state() {
    let _g = DLOPEN_LOCK.lock().unwrap_or_else(|p| p.into_inner());
    let mut failures = vec![];
    for nf in catalog() {
        let facts = match load_facts(&nf.facts_path) {
            Ok(f) => f,
            Err(e) => {
                failures.push(e.to_string());
                continue;
            }
        };
        let mut fail = |m: String| failures.push(format!("{}: {m}", nf.name));
        if facts.nf != nf.name {
            fail(format!("facts.yaml names `{}`", facts.nf));
        }
        let b = match built(&nf) {
            Ok(b) => b,
            Err(e) => {
                fail(e);
                continue;
            }
        };
        let size = Loaded::open(&b.so).state_size() as u64;
        if facts.stateful != (size > 0) {
            fail(format!(
                "stateful: {} but nf_state_size() = {size}",
                facts.stateful
            ));
        }
        let per_flow: Vec<_> = facts.state_objects.iter().filter(|o| o.per_flow).collect();
        if facts.stateful {
            let total: u64 = per_flow
                .iter()
                .map(|o| o.entry_bytes.unwrap_or(0) * o.capacity.unwrap_or(0))
                .sum();
            if total > size || total * 10 < size * 9 {
                fail(format!(
                    "per-flow objects total {total} bytes, nf_state_size() = {size}"
                ));
            }
            let largest = per_flow.iter().filter_map(|o| o.entry_bytes).max();
            if facts.state_entry_bytes != largest {
                fail(format!(
                    "state_entry_bytes {:?} but the largest per-flow entry is {largest:?}",
                    facts.state_entry_bytes
                ));
            }
            let keyed: BTreeSet<Field> = per_flow
                .iter()
                .flat_map(|o| o.key.iter().copied())
                .collect();
            if !facts.flow_key.iter().all(|k| keyed.contains(k)) {
                fail(format!(
                    "flow_key {:?} is not covered by the per-flow objects' keys {keyed:?}",
                    facts.flow_key
                ));
            }
            if facts.pointer_chasing != per_flow.iter().any(|o| o.pointer_chasing) {
                fail("pointer_chasing disagrees with the per-flow objects".into());
            }
        } else if !per_flow.is_empty() {
            fail("a stateless NF lists per-flow objects".into());
        }
    }
    report("facts", failures);
}

#[test]
fn every_example_config_is_accepted() {
    let _g = DLOPEN_LOCK.lock().unwrap_or_else(|p| p.into_inner());
    let mut failures = vec![];
    for nf in catalog() {
        let b = match built(&nf) {
            Ok(b) => b,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        let lib = Loaded::open(&b.so);
        assert!(
            nf.configs.len() >= 2,
            "{}: ship at least two example configs",
            nf.name
        );
        for cfg in &nf.configs {
            match load_config(cfg) {
                Err(e) => failures.push(e.to_string()),
                Ok(v) => {
                    if let Err(m) = lib.init(&v.flatten()) {
                        failures.push(format!("{}: rejected {}: {m}", nf.name, cfg.display()));
                    }
                }
            }
        }
    }
    report("example configs", failures);
}

/// One entry of bad_configs.yaml: the NF, the flattened config, the key the error must name.
type BadConfig = (String, Vec<(String, String)>, String);

fn bad_configs() -> Vec<BadConfig> {
    let path = nfs_root().join("tests/data/bad_configs.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let docs = YamlLoader::load_from_str(&text).unwrap();
    let Yaml::Array(items) = &docs[0] else {
        panic!("{}: expected a list", path.display())
    };
    items
        .iter()
        .map(|it| {
            let mut cfg = String::new();
            yaml_rust2::YamlEmitter::new(&mut cfg)
                .dump(&it["config"])
                .unwrap();
            let value = nfc_nfs::parse_config(&cfg, &path).unwrap();
            (
                it["nf"].as_str().unwrap().to_string(),
                value.flatten(),
                it["key"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn bad_configs_are_rejected_naming_the_key() {
    let _g = DLOPEN_LOCK.lock().unwrap_or_else(|p| p.into_inner());
    let cases = bad_configs();
    let mut failures = vec![];
    for nf in catalog() {
        if !cases.iter().any(|(n, _, _)| *n == nf.name) {
            failures.push(format!(
                "{}: no case in tests/data/bad_configs.yaml",
                nf.name
            ));
        }
    }
    for (name, kv, key) in &cases {
        let Some(nf) = nfc_nfs::builtin(name) else {
            failures.push(format!("bad_configs.yaml: unknown NF {name}"));
            continue;
        };
        let lib = Loaded::open(&built(&nf).unwrap().so);
        match lib.init(kv) {
            Ok(()) => failures.push(format!("{name}: accepted {kv:?}")),
            Err(msg) if !msg.contains(key.as_str()) => failures.push(format!(
                "{name}: message {msg:?} does not name `{key}` (config {kv:?})"
            )),
            Err(_) => {}
        }
    }
    report("bad configs", failures);
}

#[test]
fn behaviour_tests_pass_under_sanitizers() {
    let mut failures = vec![];
    for nf in catalog() {
        let test_c = nf.dir.join("tests").join(format!("test_{}.c", nf.name));
        if !test_c.is_file() {
            failures.push(format!("{}: missing {}", nf.name, test_c.display()));
            continue;
        }
        let exe = out_dir()
            .join("behaviour")
            .join(format!("test_{}", nf.name));
        let result = compile_sanitized(&nf, &[test_c], &exe, false)
            .and_then(|_| run(&mut Command::new(&exe)));
        if let Err(e) = result {
            failures.push(format!("{}: {e}", nf.name));
        }
    }
    report("behaviour tests", failures);
}

#[test]
fn robustness_corpus_under_sanitizers() {
    let mut failures = vec![];
    let robust_c = nfs_root().join("tests/c/robust.c");
    for nf in catalog() {
        let exe = out_dir().join("robust").join(format!("robust_{}", nf.name));
        let args: Vec<String> = default_kv(&nf)
            .into_iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let result = compile_sanitized(&nf, std::slice::from_ref(&robust_c), &exe, false)
            .and_then(|_| run(Command::new(&exe).args(&args)));
        match result {
            Ok(out) if out.contains(" 0 bad verdicts") => {}
            Ok(out) => failures.push(format!("{}: unexpected output {out}", nf.name)),
            Err(e) => failures.push(format!("{}: {e}", nf.name)),
        }
    }
    report("robustness", failures);
}

#[test]
fn fuzz_every_nf() {
    let mut failures = vec![];
    let mut summary = vec![];
    let tmp = tempfile::tempdir().unwrap();
    let fuzz_c = nfs_root().join("fuzz/fuzz_nf.c");
    let robust_c = nfs_root().join("tests/c/robust.c");
    // The seed corpus: the robustness harness's valid frames, in record format.
    let seeds = tmp.path().join("seeds");
    std::fs::create_dir_all(&seeds).unwrap();
    let any = &catalog()[0];
    let gen = out_dir().join("robust").join("seedgen");
    compile_sanitized(any, std::slice::from_ref(&robust_c), &gen, false).unwrap();
    run(Command::new(&gen).arg("--write-seeds").arg(&seeds)).unwrap();

    for nf in catalog() {
        let exe = out_dir().join("fuzz").join(format!("fuzz_{}", nf.name));
        let cfg = tmp.path().join(format!("{}.cfg", nf.name));
        let lines: String = default_kv(&nf)
            .into_iter()
            .map(|(k, v)| format!("{k}={v}\n"))
            .collect();
        std::fs::write(&cfg, lines).unwrap();
        let corpus = tmp.path().join(format!("corpus-{}", nf.name));
        std::fs::create_dir_all(&corpus).unwrap();
        for e in std::fs::read_dir(&seeds).unwrap() {
            let p = e.unwrap().path();
            std::fs::copy(&p, corpus.join(p.file_name().unwrap())).unwrap();
        }
        let result = compile_sanitized(&nf, std::slice::from_ref(&fuzz_c), &exe, true);
        let started = std::time::Instant::now();
        let result = result.and_then(|_| {
            run(Command::new(&exe)
                .env("NFC_FUZZ_CONFIG", &cfg)
                .arg(format!("-runs={FUZZ_RUNS}"))
                .arg("-seed=1")
                .arg("-max_len=4096")
                .arg("-print_final_stats=1")
                .arg(&corpus))
        });
        match result {
            Ok(out) => {
                let execs = out
                    .lines()
                    .find_map(|l| l.strip_prefix("stat::number_of_executed_units:"))
                    .map(|s| s.trim().to_string())
                    .unwrap_or_else(|| "?".into());
                let secs = started.elapsed().as_secs_f64();
                let per_s = execs
                    .parse::<f64>()
                    .map(|n| format!("{:.0}", n / secs.max(1e-3)))
                    .unwrap_or_default();
                summary.push(format!(
                    "{:<20} {execs:>8} execs in {secs:>5.1} s ({per_s} exec/s)",
                    nf.name
                ));
            }
            Err(e) => failures.push(format!("{}: {e}", nf.name)),
        }
    }
    println!("fuzzing ({FUZZ_RUNS} runs per NF):\n{}", summary.join("\n"));
    report("fuzzing", failures);
}

#[test]
fn click_elements_compile_and_have_facts() {
    let elements = click_elements();
    assert!(
        elements.len() >= 3,
        "only {} Click elements",
        elements.len()
    );
    let clangxx = clang_bin().with_file_name("clang++-19");
    let clangxx = if clangxx.is_file() {
        clangxx
    } else {
        PathBuf::from("/usr/lib/llvm-19/bin/clang++")
    };
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = vec![];
    for el in elements {
        match load_facts(&el.facts_path) {
            Ok(f) if f.nf == el.name => {}
            Ok(f) => failures.push(format!("{}: facts.yaml names `{}`", el.name, f.nf)),
            Err(e) => failures.push(e.to_string()),
        }
        for src in el
            .sources
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == "cc"))
        {
            let mut cmd = Command::new(&clangxx);
            cmd.args(["-std=c++17", "-Wall", "-Wextra", "-Werror", "-c"])
                .arg("-I")
                .arg(nfs_root().join("click/include"))
                .arg(src)
                .arg("-o")
                .arg(tmp.path().join(format!("{}.o", el.name)));
            if let Err(e) = run(&mut cmd) {
                failures.push(format!("{}: {e}", el.name));
            }
        }
    }
    report("click elements", failures);
}
