//! SmartNIC insight data (Clara §3, issue 19): synthesised training programs
//! and the held-out real NFs, each lowered by `nfc_reducer::insight_ir` to
//! annotated proxy-target IR with the proxy compiler's per-function counts.
//! The sequence models train in `nfc-predict` (libtorch); this module only
//! produces their plain-data input.

use nfc_analyzer::realworld;
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

/// Whether the accelerator path runs functions for the behavioural CRC
/// test: yes unless `NFC_INSIGHT_NO_EXEC` is set (then every function's
/// `behaviour` is `None` and the classifier is the syntactic model alone,
/// as before the thirteenth session: how the previous frozen model is
/// scored with this build).
pub fn execute_functions() -> bool {
    std::env::var_os("NFC_INSIGHT_NO_EXEC").is_none()
}

/// The built-in NFs (`nfs/<name>/<name>.c`, the fuzz harness excluded), lowered.
pub fn builtin_nfs(nfs_dir: &Path) -> Lowered {
    let mut l = Lowered::default();
    let dirs = match sorted_subdirs(nfs_dir) {
        Ok(d) => d,
        Err(e) => {
            l.failures.push(e);
            return l;
        }
    };
    // The NFs are classified for accelerators too: run their functions
    // for the behavioural CRC test as the accelerator corpus is.
    let opts = InsightOptions {
        execute: execute_functions(),
        ..InsightOptions::default()
    };
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

/// The entries of `dir` in name order (one NF per entry: the caller checks
/// for its source file, so entries that are not NF directories are skipped
/// there); an unreadable `dir` is the failure `cannot read <dir>`.
fn sorted_subdirs(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let rd = std::fs::read_dir(dir).map_err(|_| format!("cannot read {}", dir.display()))?;
    let mut dirs: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    dirs.sort();
    Ok(dirs)
}

/// The host's system header directories (the multiarch one, holding the
/// Linux UAPI's `asm/`, then `/usr/include`), those that exist. There is no
/// riscv32 sysroot here; third-party units find their Linux UAPI and libbpf
/// headers there as their own builds do (`clang -target bpf` searches
/// `/usr/include`, xdp-tools' `ARCH_INCLUDES` adds the multiarch directory).
/// Searched last, after nfc's freestanding prototypes, so a host C library
/// header is only reached when nothing else provides it.
pub fn host_system_include_dirs() -> Vec<PathBuf> {
    [
        PathBuf::from(format!("/usr/include/{}-linux-gnu", std::env::consts::ARCH)),
        PathBuf::from("/usr/include"),
    ]
    .into_iter()
    .filter(|d| d.is_dir())
    .collect()
}

/// How the held-out third-party and Click code is lowered: the built-ins'
/// pipeline (clang-19 riscv32 -O0 IR, llc-19 -O2 proxy counts) with the
/// unit's include directories and [`host_system_include_dirs`] last. No
/// behavioural execution: these units are scored for compute only.
fn heldout_options(includes: &[PathBuf]) -> InsightOptions {
    let mut opts = InsightOptions {
        after_dirs: host_system_include_dirs(),
        ..InsightOptions::default()
    };
    opts.include_dirs.extend(includes.iter().cloned());
    opts
}

/// The first line of a lowering error that says what went wrong (clang's
/// first `error:` line), for a one-line failure reason.
fn first_error_line(e: &str) -> String {
    let line = e
        .lines()
        .find(|l| l.contains("error:"))
        .or_else(|| e.lines().find(|l| !l.trim().is_empty()))
        .unwrap_or("");
    // The error's own prefix (`clang-19 failed on NF …: clang-19: `) names
    // the unit, which the caller already does.
    line.rsplit("clang-19: ")
        .next()
        .unwrap_or(line)
        .trim()
        .to_string()
}

/// Lower the C files of one held-out NF into one unit named `name` (the
/// functions of every file; a unit with a file that does not lower fails
/// whole, so no NF is scored on part of its code).
fn lower_heldout(name: &str, c_files: &[PathBuf], opts: &InsightOptions) -> Result<IrUnit, String> {
    let mut unit: Option<IrUnit> = None;
    for f in c_files {
        let u = insight_ir::prepare_c(name, f, opts).map_err(|e| {
            let rel = f
                .file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default();
            format!("{rel}: {}", first_error_line(&e.to_string()))
        })?;
        match unit.as_mut() {
            None => unit = Some(u),
            Some(acc) => acc.functions.extend(u.functions),
        }
    }
    unit.ok_or_else(|| "no C source file".to_string())
}

/// Lower third-party C files that are *not* held out (the generator's
/// design guide: XDP programs of xdp-tools outside the scored units) as the
/// held-out corpus is lowered, so their words and proxy counts compare
/// like for like with the scored NFs'.
pub fn lower_third_party(
    name: &str,
    c_files: &[PathBuf],
    includes: &[PathBuf],
) -> Result<IrUnit, String> {
    lower_heldout(name, c_files, &heldout_options(includes))
}

/// The real-world corpus units of `labels.yaml` ([`realworld::load_units`], one NF per
/// labelled unit, named by its id; its functions are every function its C
/// files define, as a built-in NF's are), lowered from `corpus_dir` (one
/// tree per package, `cargo xtask setup --corpus`) with the unit's own
/// include directories. Units that do not compile for the proxy target are
/// failures `id: reason`, never dropped silently; headers and non-C files
/// are not lowered (a unit with no C file fails).
pub fn corpus_nfs(corpus_dir: &Path) -> Lowered {
    let mut l = Lowered::default();
    let units = match realworld::load_units() {
        Ok(u) => u,
        Err(e) => {
            l.failures.push(e.to_string());
            return l;
        }
    };
    for u in &units {
        let (files, includes) = realworld::unit_paths(corpus_dir, u);
        let c_files: Vec<PathBuf> = files
            .into_iter()
            .filter(|f| f.to_string_lossy().ends_with(".c"))
            .collect();
        if c_files.is_empty() {
            l.failures.push(format!(
                "{}: no C file among {} (generated at build time or header only)",
                u.id,
                u.files.join(", ")
            ));
            continue;
        }
        match lower_heldout(&u.id, &c_files, &heldout_options(&includes)) {
            Ok(unit) => l.units.push(unit),
            Err(e) => l.failures.push(format!("{}: {e}", u.id)),
        }
    }
    l
}

/// The Click elements written against nfc's Click headers
/// (`<click_dir>/<name>/<name>.cc`, headers in `<click_dir>/include`), each
/// one NF named `click/<name>`, lowered as [`corpus_nfs`] lowers corpus
/// code (clang compiles `.cc` as C++).
pub fn click_nfs(click_dir: &Path) -> Lowered {
    let mut l = Lowered::default();
    let dirs = match sorted_subdirs(click_dir) {
        Ok(d) => d,
        Err(e) => {
            l.failures.push(e);
            return l;
        }
    };
    for d in dirs {
        let Some(name) = d.file_name().map(|n| n.to_string_lossy().into_owned()) else {
            continue;
        };
        let src = d.join(format!("{name}.cc"));
        if !src.is_file() {
            continue;
        }
        let opts = heldout_options(&[click_dir.join("include"), d.clone()]);
        let id = format!("click/{name}");
        match lower_heldout(&id, &[src], &opts) {
            Ok(unit) => l.units.push(unit),
            Err(e) => l.failures.push(format!("{id}: {e}")),
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
    // The accelerator path: every function is also run for the
    // behavioural CRC test (`insight_exec`).
    let mut opts = InsightOptions {
        proxy,
        execute: execute_functions(),
        ..InsightOptions::default()
    };
    opts.include_dirs.extend(extra_includes.iter().cloned());
    insight_ir::prepare_c(name, src, &opts).map_err(|e| e.to_string())
}

/// Units of test-only files with hand labels per function: (file, unit,
/// [(function, kind)]).
pub type LabelledUnits = Vec<(String, IrUnit, Vec<(String, AccelKind)>)>;

/// The accelerator corpus: implementations written for nfc
/// (`crates/smartnic/data/accel/{crc,lpm,none}/*.c`), each function labelled
/// by its directory, as (file stem, kind, unit); the files listed in
/// `data/accel/heldout.txt` are held out.
pub struct AccelCorpus {
    pub train: Vec<(String, AccelKind, IrUnit)>,
    pub test: Vec<(String, AccelKind, IrUnit)>,
    /// Real implementations (DPDK, from `$NFC_CORPUS_DIR`): test only, labelled per function.
    pub real: LabelledUnits,
    /// The fresh held-out set (`data/accel/fresh/`): third-party functions
    /// from the Debian source packages in `$NFC_CORPUS_DIR`, labelled by
    /// hand in `fresh/labels.txt` before the classifier ever ran on them.
    /// Test only; same shape as `real`.
    pub fresh: LabelledUnits,
    /// The second fresh held-out set (`data/accel/fresh2/`, sixth session):
    /// third-party functions from Debian source packages used nowhere else
    /// in the accelerator data, labelled in `fresh2/labels.txt` and
    /// committed before the classifier first ran on them. Test only.
    pub fresh2: LabelledUnits,
    /// The third fresh held-out set (`data/accel/fresh3/`, ninth session):
    /// third-party functions from Debian source packages used nowhere else
    /// in the accelerator data, labelled in `fresh3/labels.txt` and
    /// committed before the classifier first ran on them. Test only.
    pub fresh3: LabelledUnits,
    /// The fourth fresh held-out set (`data/accel/fresh4/`, tenth session):
    /// third-party functions from Debian source packages used nowhere else
    /// in the accelerator data, labelled in `fresh4/labels.txt` and
    /// committed before any signal work and before the classifier first
    /// ran on them. Test only.
    pub fresh4: LabelledUnits,
    /// The fifth fresh held-out set (`data/accel/fresh5/`, eleventh
    /// session): third-party functions from Debian source packages used
    /// nowhere else in the accelerator data, labelled in
    /// `fresh5/labels.txt` and committed before the classifier first ran
    /// on them. Test only.
    pub fresh5: LabelledUnits,
    /// The sixth fresh held-out set (`data/accel/fresh6/`, twelfth
    /// session): third-party functions from Debian source packages used
    /// nowhere else in the accelerator data, labelled in
    /// `fresh6/labels.txt` and committed before the classifier first ran
    /// on them. Test only.
    pub fresh6: LabelledUnits,
    /// The seventh fresh held-out set (`data/accel/fresh7/`, thirteenth
    /// session): third-party functions from Debian source packages used
    /// nowhere else in the accelerator data, labelled in
    /// `fresh7/labels.txt` and committed before the classifier first ran
    /// on them. Test only.
    pub fresh7: LabelledUnits,
    /// The eighth fresh held-out set (`data/accel/fresh8/`, fourteenth
    /// session): third-party functions from Debian packages used nowhere
    /// else in the accelerator data, labelled by hand in
    /// `fresh8/labels.txt` and committed before the classifier first ran
    /// on them.
    pub fresh8: LabelledUnits,
    /// The ninth fresh held-out set (`data/accel/fresh9/`, fifteenth
    /// session): third-party functions from Debian packages used nowhere
    /// else in the accelerator data, labelled by hand in
    /// `fresh9/labels.txt` and committed before the classifier first ran
    /// on them.
    pub fresh9: LabelledUnits,
    /// The tenth fresh held-out set (`data/accel/fresh10/`, seventeenth
    /// session): third-party functions from Debian packages used nowhere
    /// else in the accelerator data, labelled by hand in
    /// `fresh10/labels.txt` and committed before the classifier first ran
    /// on them.
    pub fresh10: LabelledUnits,
    /// The eleventh fresh held-out set (`data/accel/fresh11/`, eighteenth
    /// session): third-party functions from Debian packages used nowhere
    /// else in the accelerator data, labelled by hand in
    /// `fresh11/labels.txt` and committed before the classifier first ran
    /// on them.
    pub fresh11: LabelledUnits,
    /// The twelfth fresh held-out set (`data/accel/fresh12/`, twentieth
    /// session): third-party functions from Debian packages used nowhere
    /// else in the accelerator data, labelled by hand in
    /// `fresh12/labels.txt` and committed before the classifier first ran
    /// on them.
    pub fresh12: LabelledUnits,
    pub failures: Vec<String>,
}

impl AccelCorpus {
    /// The fresh held-out sets by directory name, oldest first.
    pub fn fresh_sets(&self) -> [(&'static str, &LabelledUnits); 12] {
        [
            ("fresh", &self.fresh),
            ("fresh2", &self.fresh2),
            ("fresh3", &self.fresh3),
            ("fresh4", &self.fresh4),
            ("fresh5", &self.fresh5),
            ("fresh6", &self.fresh6),
            ("fresh7", &self.fresh7),
            ("fresh8", &self.fresh8),
            ("fresh9", &self.fresh9),
            ("fresh10", &self.fresh10),
            ("fresh11", &self.fresh11),
            ("fresh12", &self.fresh12),
        ]
    }
}

/// The text of the top-level C function (or array: `name[…] = {…};`)
/// definitions `names` in `src`, verbatim (return-type lines above the name included, up to the brace
/// that closes the body), in the order asked. An error names what is
/// missing, so a corpus version change is reported, not silently skipped.
pub fn extract_functions(src: &str, names: &[&str]) -> Result<String, String> {
    let lines: Vec<&str> = src.lines().collect();
    let mut out = String::new();
    for name in names {
        // The definition: a line with `name(` not preceded by an identifier
        // character, whose declaration goes on to a `{` before any `;`.
        let starts = lines.iter().enumerate().filter(|(_, l)| {
            !l.starts_with(' ')
                && !l.starts_with('\t')
                && !l.starts_with("//")
                // A comment's first line (`/*\tint\tname(list, …)`, the
                // synopsis of a Postfix-style header comment).
                && !l.starts_with("/*")
                // A comment's continuation, unless the line is a pointer
                // declarator (`radix_node_t\n*name(...)`, the MRT style).
                && (!l.starts_with('*') || l[1..].starts_with(name))
                && !l.starts_with('#')
                && l.match_indices(name).any(|(i, _)| {
                    let before = l[..i].chars().next_back();
                    let after = l[i + name.len()..].trim_start();
                    // `(`: a function; `[`: a table (`static const T t[256] = {`),
                    // so a fresh set can carry the real constant table a
                    // function reads instead of an extern that reads as unknown.
                    !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
                        && (after.starts_with('(') || after.starts_with('['))
                })
        });
        let mut found = None;
        for (i, _) in starts {
            // Scan forward to the first `{` or `;` at nesting depth 0.
            let mut j = i;
            let mut body = None;
            'scan: while j < lines.len() {
                for c in lines[j].chars() {
                    match c {
                        ';' => break 'scan,
                        '{' => {
                            body = Some(j);
                            break 'scan;
                        }
                        _ => {}
                    }
                }
                j += 1;
            }
            if let Some(b) = body {
                found = Some((i, b));
                break;
            }
        }
        let Some((i, b)) = found else {
            return Err(format!("no definition of `{name}`"));
        };
        // A table whose element type is defined in its own declaration
        // (`static const struct policy {…} defpolicy[] = {`, musl's):
        // the name's line opens with the `}` closing that type, so the
        // definition starts where its `{` is.
        let mut i = i;
        if lines[i].starts_with('}') {
            // Match that `}` backwards, right to left over the lines above.
            let mut depth = 1i32;
            'open: for k in (0..i).rev() {
                for c in lines[k].chars().rev() {
                    match c {
                        '}' => depth += 1,
                        '{' => depth -= 1,
                        _ => {}
                    }
                    if depth == 0 {
                        i = k;
                        break 'open;
                    }
                }
            }
        }
        // Return-type lines above: up to a blank line or the end of the
        // previous item.
        let mut first = i;
        while first > 0 {
            let prev = lines[first - 1].trim_end();
            if prev.is_empty()
                || prev.ends_with('}')
                || prev.ends_with(';')
                || prev.ends_with("*/")
                || prev.starts_with('#')
            {
                break;
            }
            first -= 1;
        }
        // The body: braces balanced from line `b` (strings and comments in
        // C bodies rarely hold braces; a mismatch is an error below).
        let mut depth = 0i32;
        let mut last = None;
        'body: for (k, l) in lines.iter().enumerate().skip(b) {
            // The `}` closing a table's element type (above) is no body's.
            let skip = usize::from(k == b && l.starts_with('}'));
            for c in l.chars().skip(skip) {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            last = Some(k);
                            break 'body;
                        }
                    }
                    _ => {}
                }
            }
        }
        let Some(last) = last else {
            return Err(format!("unbalanced braces in `{name}`"));
        };
        for l in &lines[first..=last] {
            out.push_str(l);
            out.push('\n');
        }
        out.push('\n');
    }
    Ok(out)
}

/// A corpus source file as text. Third-party C is not always UTF-8
/// (Net-SNMP's `snmp_api.c` holds a Latin-1 byte in a comment): invalid
/// bytes become U+FFFD, which only comments and strings can hold.
fn read_source(p: &Path) -> std::io::Result<String> {
    std::fs::read(p).map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// Expand a fresh-set file: each line `//@extract <path in the corpus>
/// <function>…` becomes those functions' verbatim text, each line
/// `//@include <path in the corpus>` the whole file.
pub fn expand_fresh(text: &str, corpus: &Path) -> Result<String, String> {
    let mut out = String::new();
    for (n, line) in text.lines().enumerate() {
        if let Some(file) = line.trim().strip_prefix("//@include ") {
            let file = file.trim();
            let src = read_source(&corpus.join(file))
                .map_err(|e| format!("line {}: {file}: {e}", n + 1))?;
            out.push_str(&src);
            out.push('\n');
        } else if let Some(rest) = line.trim().strip_prefix("//@extract ") {
            let mut it = rest.split_whitespace();
            let file = it
                .next()
                .ok_or_else(|| format!("line {}: `//@extract` names no file", n + 1))?;
            let names: Vec<&str> = it.collect();
            let src = read_source(&corpus.join(file))
                .map_err(|e| format!("line {}: {file}: {e}", n + 1))?;
            out.push_str(&format!("#line 1 \"{file}\"\n"));
            out.push_str(
                &extract_functions(&src, &names)
                    .map_err(|e| format!("line {}: {file}: {e}", n + 1))?,
            );
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    Ok(out)
}

/// The hand labels of the fresh set: `file.c function crc|lpm|none`
/// lines (`#` comments; `exclude` lines name functions left out, with
/// the reason in the comment).
pub fn fresh_labels(text: &str) -> Result<Vec<(String, String, Option<AccelKind>)>, String> {
    let mut out = vec![];
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        let [file, function, label] = f[..] else {
            return Err(format!(
                "labels.txt:{}: expected `file function label`",
                n + 1
            ));
        };
        let kind = match label {
            "crc" => Some(AccelKind::Crc),
            "lpm" => Some(AccelKind::Lpm),
            "none" => Some(AccelKind::None),
            "exclude" => None,
            _ => return Err(format!("labels.txt:{}: unknown label `{label}`", n + 1)),
        };
        out.push((file.to_string(), function.to_string(), kind));
    }
    Ok(out)
}

/// Where the accelerator corpus lives.
pub fn accel_corpus_dir() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/crates/smartnic/data/accel"
    ))
}

/// One fresh held-out set alone, lowered and checked against its labels
/// (`insight_bench -- accel-lower <set>`: a new set is checked this way
/// before its labels are committed, without lowering the whole corpus).
pub fn fresh_set_only(corpus_dir: Option<&Path>, set: &str) -> (LabelledUnits, Vec<String>) {
    let root = accel_corpus_dir();
    let corpus = corpus_dir
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("/var/tmp/nfc-corpus"));
    let mut failures = vec![];
    let units = fresh_set(&root, &corpus, set, &mut failures);
    (units, failures)
}

pub fn accel_corpus(corpus_dir: Option<&Path>) -> AccelCorpus {
    let root = accel_corpus_dir();
    let mut c = AccelCorpus {
        train: vec![],
        test: vec![],
        real: vec![],
        fresh: vec![],
        fresh2: vec![],
        fresh3: vec![],
        fresh4: vec![],
        fresh5: vec![],
        fresh6: vec![],
        fresh7: vec![],
        fresh8: vec![],
        fresh9: vec![],
        fresh10: vec![],
        fresh11: vec![],
        fresh12: vec![],
        failures: vec![],
    };
    // The held-out files are listed (`heldout.txt`), so adding training
    // files never moves a file between training and test.
    let heldout: std::collections::BTreeSet<String> =
        std::fs::read_to_string(root.join("heldout.txt"))
            .unwrap_or_default()
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(String::from)
            .collect();
    if heldout.is_empty() {
        c.failures.push(format!(
            "{}: no held-out files listed",
            root.join("heldout.txt").display()
        ));
    }
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
        for f in &files {
            let stem = f
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            match lower_file(&stem, f, &[], false) {
                Ok(u) => {
                    if heldout.contains(&stem) {
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
        let lib = corpus.join("dpdk/lib");
        if lib.join("hash").is_dir() {
            let shim = root.join("real/shim");
            for (file, dir, label) in [
                ("dpdk_crc_sw.c", "hash", AccelKind::Crc),
                ("dpdk_jhash.c", "hash", AccelKind::None),
                ("dpdk_thash.c", "hash", AccelKind::None),
                ("dpdk_lpm.c", "lpm", AccelKind::Lpm),
            ] {
                match lower_file(
                    file.trim_end_matches(".c"),
                    &root.join("real").join(file),
                    &[shim.clone(), lib.join(dir)],
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
        c.fresh = fresh_set(&root, corpus, "fresh", &mut c.failures);
        c.fresh2 = fresh_set(&root, corpus, "fresh2", &mut c.failures);
        c.fresh3 = fresh_set(&root, corpus, "fresh3", &mut c.failures);
        c.fresh4 = fresh_set(&root, corpus, "fresh4", &mut c.failures);
        c.fresh5 = fresh_set(&root, corpus, "fresh5", &mut c.failures);
        c.fresh6 = fresh_set(&root, corpus, "fresh6", &mut c.failures);
        c.fresh7 = fresh_set(&root, corpus, "fresh7", &mut c.failures);
        c.fresh8 = fresh_set(&root, corpus, "fresh8", &mut c.failures);
        c.fresh9 = fresh_set(&root, corpus, "fresh9", &mut c.failures);
        c.fresh10 = fresh_set(&root, corpus, "fresh10", &mut c.failures);
        c.fresh11 = fresh_set(&root, corpus, "fresh11", &mut c.failures);
        c.fresh12 = fresh_set(&root, corpus, "fresh12", &mut c.failures);
    }
    c
}

/// The C library headers the fresh sets' third-party functions include
/// (`netinet/in.h`, `sys/socket.h`, `assert.h`, …), under the accelerator
/// corpus: there is no C library for riscv32 here, so these declare just
/// the POSIX types and macros the extracted functions use, with Linux's
/// values and layouts. Shared by every fresh set, searched right after the
/// set's own `shim` (where a header only one set needs, or one that differs
/// per set, stays) and before `fresh/shim` and `real/shim`.
const LIBC_SHIM: &str = "libc-shim";

/// Lower a fresh held-out set (see [`AccelCorpus::fresh`],
/// [`AccelCorpus::fresh2`], [`AccelCorpus::fresh3`], [`AccelCorpus::fresh4`], [`AccelCorpus::fresh5`],
/// [`AccelCorpus::fresh6`], [`AccelCorpus::fresh7`], [`AccelCorpus::fresh8`], [`AccelCorpus::fresh9`], [`AccelCorpus::fresh10`], [`AccelCorpus::fresh11`], [`AccelCorpus::fresh12`]): each file of `data/accel/<set>/` expanded with
/// the corpus functions it extracts, with `<set>/shim`, [`LIBC_SHIM`],
/// `fresh/shim` and `real/shim` on the include path. Every labelled function must exist in
/// its unit (a missing one is a failure, never a silent drop); an
/// unlabelled, not excluded function is a failure too.
fn fresh_set(root: &Path, corpus: &Path, set: &str, failures: &mut Vec<String>) -> LabelledUnits {
    let mut out = vec![];
    let dir = root.join(set);
    let labels = match std::fs::read_to_string(dir.join("labels.txt"))
        .map_err(|e| format!("{}: {e}", dir.join("labels.txt").display()))
        .and_then(|t| fresh_labels(&t))
    {
        Ok(l) => l,
        Err(e) => {
            failures.push(e);
            return out;
        }
    };
    let mut files: Vec<&str> = labels.iter().map(|l| l.0.as_str()).collect();
    files.dedup();
    let tmp = std::env::temp_dir().join(format!("nfc-accel-{set}-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&tmp);
    for file in files {
        let lowered = std::fs::read_to_string(dir.join(file))
            .map_err(|e| format!("{file}: {e}"))
            .and_then(|t| expand_fresh(&t, corpus).map_err(|e| format!("{file}: {e}")))
            .and_then(|t| {
                let p = tmp.join(file);
                std::fs::write(&p, t).map_err(|e| format!("{}: {e}", p.display()))?;
                lower_file(
                    file.trim_end_matches(".c"),
                    &p,
                    &[
                        dir.join("shim"),
                        root.join(LIBC_SHIM),
                        root.join("fresh/shim"),
                        root.join("real/shim"),
                    ],
                    false,
                )
            });
        match lowered {
            Ok(u) => {
                let mut ls = vec![];
                for (_, function, kind) in labels.iter().filter(|l| l.0 == file) {
                    if !u.functions.iter().any(|f| &f.name == function) {
                        failures.push(format!(
                            "{file}: labelled function `{function}` not in the IR"
                        ));
                    } else if let Some(k) = kind {
                        ls.push((function.clone(), *k));
                    }
                }
                for f in u.functions.iter().filter(|f| !f.framework) {
                    if !labels.iter().any(|l| l.0 == file && l.1 == f.name) {
                        failures.push(format!("{file}: function `{}` has no label", f.name));
                    }
                }
                out.push((file.to_string(), u, ls));
            }
            Err(e) => failures.push(e),
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    out
}

/// The synthesised NF-like programs the accelerator classifier trains on as
/// `none` (header parsing, tables, counters, checksum-like folds).
pub fn accel_negatives(n: usize) -> Lowered {
    // nf.h programs only: the XDP programs the compute generator also
    // writes (seventeenth session) would change the negatives the shipped
    // accelerator model was fitted on.
    synthesise(&Profile::nf_like().without_xdp(), n, 7_000_000, 2)
}

/// The accelerator classifier as the bench trains it: the corpus' training
/// files plus every function of `synth` ([`accel_negatives`]) as `none`;
/// the feature set and λ chosen by 5-fold cross-validation grouped by file
/// (or program) within this training set ([`nfc_smartnic::accel::select`]),
/// then refitted on all of it; seed 19. The held-out files never take part.
pub fn train_accel_model(c: &AccelCorpus, synth: &Lowered) -> AccelModel {
    let mut train: Vec<(String, Labelled<'_>)> = vec![];
    for (stem, kind, u) in &c.train {
        train.extend(u.functions.iter().filter(|f| !f.framework).map(|f| {
            (
                stem.clone(),
                Labelled {
                    function: f,
                    kind: *kind,
                },
            )
        }));
    }
    for (i, u) in synth.units.iter().enumerate() {
        train.extend(u.functions.iter().filter(|f| !f.framework).map(|f| {
            (
                format!("synth{i}"),
                Labelled {
                    function: f,
                    kind: AccelKind::None,
                },
            )
        }));
    }
    let mining = MiningConfig::default();
    let cv = nfc_smartnic::accel::select(&train, 5, &mining, 19);
    let best = &cv[0];
    let all: Vec<Labelled<'_>> = train.into_iter().map(|(_, l)| l).collect();
    let mut m = AccelModel::train(&all, &mining, best.set, best.lambda, 19);
    m.cv = cv;
    m
}

// ---------------------------------------------------------------- per-NF report

/// The accelerator classifier `nfc insight` and `nfc analyze --smartnic`
/// use, trained by `cargo run --release --example insight_bench -- models`
/// (the corpus' training files and synthesised negatives, seed 19).
pub const ACCEL_MODEL_JSON: &str = include_str!("../crates/smartnic/data/insight/accel-model.json");
/// The per-word compute cost model `nfc insight` uses by default, trained
/// by the same command on synthesised programs (never on the built-in NFs).
pub const WORD_COST_MODEL_JSON: &str =
    include_str!("../crates/smartnic/data/insight/word-cost-model.json");

/// The shipped models, parsed.
pub struct Models {
    pub accel: AccelModel,
    pub cost: nfc_smartnic::word_cost::WordCostModel,
}

pub fn shipped_models() -> Result<Models, String> {
    let accel: AccelModel = serde_json::from_str(ACCEL_MODEL_JSON)
        .map_err(|e| format!("shipped accelerator model: {e}"))?;
    accel
        .check()
        .map_err(|e| format!("shipped accelerator model: {e}"))?;
    let cost = nfc_smartnic::word_cost::WordCostModel::from_json(WORD_COST_MODEL_JSON)
        .map_err(|e| format!("shipped word-cost model: {e}"))?;
    Ok(Models { accel, cost })
}

/// One block's prediction.
#[derive(Debug, Clone, serde::Serialize)]
pub struct BlockInsight {
    pub block: String,
    pub compute_instructions: f64,
    pub memory_accesses: u32,
}

/// One function's prediction.
#[derive(Debug, Clone, serde::Serialize)]
pub struct FunctionInsight {
    pub function: String,
    /// Reachable from the entry (`nf_process`) through the NF's own calls.
    pub on_packet_path: bool,
    pub compute_instructions: f64,
    pub memory_accesses: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blocks: Option<Vec<BlockInsight>>,
}

/// A function the accelerator classifier flags.
#[derive(Debug, Clone, serde::Serialize)]
pub struct AccelCandidate {
    pub kind: AccelKind,
    pub function: String,
    pub confidence: f64,
    /// Where the function is defined (a scan of the source text), when found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// Why, when execution proved it (the CRC's width and polynomial).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<String>,
}

/// What `nfc insight` reports for one NF. `compute_instructions` and
/// `memory_accesses` are the sums over the functions on the packet path
/// (each function once, straight-line: loops are not unrolled and both
/// sides of a branch count), in proxy-ISA (riscv32) instructions and 32-bit
/// memory words; `None` with `unknown` set when the NF does not lower.
#[derive(Debug, Clone, serde::Serialize)]
pub struct NfInsight {
    pub nf: String,
    /// The per-packet entry the packet path starts from; `None` when the
    /// NF defines no `nf_process` (then every function counts).
    pub entry: Option<String>,
    pub compute_instructions: Option<f64>,
    pub memory_accesses: Option<u32>,
    pub accelerators: Vec<AccelCandidate>,
    pub functions: Vec<FunctionInsight>,
    /// The compute model: `word-cost` (shipped, no libtorch) or `lstm` (`--model`).
    pub model: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unknown: Option<String>,
}

/// Lower an NF's C sources (headers and non-C files are skipped) into one unit.
pub fn lower_nf(name: &str, sources: &[PathBuf], includes: &[PathBuf]) -> Result<IrUnit, String> {
    let c_files: Vec<&PathBuf> = sources
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    if c_files.is_empty() {
        return Err(format!(
            "no C source among {} (the insight IR lowers C only; C++ and headers are not lowered)",
            sources
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let mut unit: Option<IrUnit> = None;
    for f in c_files {
        let u = lower_file(name, f, includes, false)?;
        match unit.as_mut() {
            None => unit = Some(u),
            Some(acc) => acc.functions.extend(u.functions),
        }
    }
    unit.ok_or_else(|| "nothing lowered".to_string())
}

/// The NF's own functions reachable from `entry` through direct calls.
pub fn packet_path(unit: &IrUnit, entry: &str) -> std::collections::BTreeSet<String> {
    let mut seen = std::collections::BTreeSet::new();
    let mut todo = vec![entry.to_string()];
    while let Some(n) = todo.pop() {
        if !seen.insert(n.clone()) {
            continue;
        }
        if let Some(f) = unit.functions.iter().find(|f| f.name == n) {
            todo.extend(f.callees.iter().cloned());
        }
    }
    seen
}

/// Where `function` is defined: the first line of `sources` that starts a
/// definition of it in column 0 (`name(` not ending in `;`).
pub fn definition_line(sources: &[PathBuf], function: &str) -> Option<(String, u32)> {
    for s in sources {
        let Ok(text) = std::fs::read_to_string(s) else {
            continue;
        };
        for (i, line) in text.lines().enumerate() {
            if line.starts_with([' ', '\t', '#', '/', '*']) || line.trim_end().ends_with(';') {
                continue;
            }
            let mut at = 0;
            while let Some(p) = line[at..].find(function) {
                let start = at + p;
                let end = start + function.len();
                let before_ok = line[..start]
                    .chars()
                    .next_back()
                    .is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
                if before_ok && line[end..].trim_start().starts_with('(') {
                    return Some((s.display().to_string(), i as u32 + 1));
                }
                at = end;
            }
        }
    }
    None
}

/// Predict one lowered NF with the shipped models; `blocks` keeps per-block rows.
pub fn nf_insight(
    nf: &str,
    unit: &IrUnit,
    sources: &[PathBuf],
    models: &Models,
    blocks: bool,
) -> NfInsight {
    let own: Vec<&nfc_core::insight::IrFunction> = unit
        .functions
        .iter()
        .filter(|f| !f.framework && !f.is_empty())
        .collect();
    let entry = own
        .iter()
        .any(|f| f.name == "nf_process")
        .then(|| "nf_process".to_string());
    let path = entry.as_deref().map(|e| packet_path(unit, e));
    let mut functions = vec![];
    for f in &own {
        let per_block = models.cost.predict_blocks(f);
        functions.push(FunctionInsight {
            function: f.name.clone(),
            on_packet_path: path.as_ref().is_none_or(|p| p.contains(&f.name)),
            compute_instructions: models.cost.predict(f),
            memory_accesses: f.memory_words(),
            blocks: blocks.then(|| {
                f.blocks
                    .iter()
                    .zip(&per_block)
                    .map(|(b, c)| BlockInsight {
                        block: b.name.clone(),
                        compute_instructions: *c,
                        memory_accesses: b.memory_words,
                    })
                    .collect()
            }),
        });
    }
    let accelerators = accelerator_candidates(&own, sources, &models.accel);
    finish(nf, entry, functions, accelerators, "word-cost")
}

/// Sum the packet path of per-function rows into an [`NfInsight`].
pub fn finish(
    nf: &str,
    entry: Option<String>,
    functions: Vec<FunctionInsight>,
    accelerators: Vec<AccelCandidate>,
    model: &str,
) -> NfInsight {
    let on: Vec<&FunctionInsight> = functions.iter().filter(|f| f.on_packet_path).collect();
    NfInsight {
        nf: nf.to_string(),
        entry,
        compute_instructions: Some(on.iter().map(|f| f.compute_instructions).sum()),
        memory_accesses: Some(on.iter().map(|f| f.memory_accesses).sum()),
        accelerators,
        functions,
        model: model.to_string(),
        unknown: None,
    }
}

/// An NF that did not lower: every figure unknown, with the reason.
pub fn unknown_nf(nf: &str, reason: String) -> NfInsight {
    NfInsight {
        nf: nf.to_string(),
        entry: None,
        compute_instructions: None,
        memory_accesses: None,
        accelerators: vec![],
        functions: vec![],
        model: String::new(),
        unknown: Some(reason),
    }
}

/// The functions the accelerator classifier flags (CRC or LPM), with where
/// they are defined. The classifier reads each function with its callees
/// inlined, so a caller of a flagged function is flagged too; the caller is
/// left out when a function it reaches through its calls is flagged with
/// the same kind (the implementation is the callee's).
pub fn accelerator_candidates(
    own: &[&nfc_core::insight::IrFunction],
    sources: &[PathBuf],
    model: &AccelModel,
) -> Vec<AccelCandidate> {
    let verdicts: std::collections::BTreeMap<&str, _> = own
        .iter()
        .map(|f| (f.name.as_str(), model.classify(f)))
        .collect();
    let reaches_same_kind = |f: &nfc_core::insight::IrFunction, kind: AccelKind| {
        let mut seen = std::collections::BTreeSet::new();
        let mut stack: Vec<&str> = f.callees.iter().map(String::as_str).collect();
        while let Some(n) = stack.pop() {
            if n == f.name || !seen.insert(n) {
                continue;
            }
            if verdicts.get(n).is_some_and(|v| v.kind == kind) {
                return true;
            }
            if let Some(g) = own.iter().find(|g| g.name == n) {
                stack.extend(g.callees.iter().map(String::as_str));
            }
        }
        false
    };
    own.iter()
        .filter_map(|f| {
            let v = verdicts[f.name.as_str()];
            (v.kind != AccelKind::None && !reaches_same_kind(f, v.kind)).then(|| {
                let loc = definition_line(sources, &f.name);
                AccelCandidate {
                    kind: v.kind,
                    function: f.name.clone(),
                    confidence: v.confidence,
                    file: loc.as_ref().map(|l| l.0.clone()),
                    line: loc.map(|l| l.1),
                    evidence: (v.kind == AccelKind::Crc)
                        .then(|| f.behaviour.as_ref().and_then(|b| b.crc_evidence()))
                        .flatten(),
                }
            })
        })
        .collect()
}

/// Add the IR classifier's accelerators to an NF's facts, each with evidence
/// (the function's definition, or the first source file when it is not found).
pub fn add_accelerator_facts(
    facts: &mut nfc_core::Facts,
    candidates: &[AccelCandidate],
    sources: &[PathBuf],
) {
    use nfc_core::facts::{Accelerator, Evidence, Question};
    for c in candidates {
        let a = match c.kind {
            AccelKind::Crc => Accelerator::Crc,
            AccelKind::Lpm => Accelerator::Lpm,
            AccelKind::None => continue,
        };
        if !facts.accelerators.contains(&a) {
            facts.accelerators.push(a);
        }
        let file = c
            .file
            .clone()
            .or_else(|| sources.first().map(|p| p.display().to_string()))
            .unwrap_or_default();
        let line = c.line.unwrap_or(1);
        facts.evidence.push(Evidence {
            question: Question::Accelerator,
            file,
            line_start: line,
            line_end: line,
            reason: format!(
                "IR classifier: `{}` is {} code (confidence {:.2}){}",
                c.function,
                c.kind.name().to_uppercase(),
                c.confidence,
                c.evidence
                    .as_ref()
                    .map(|e| format!("; {e}"))
                    .unwrap_or_default()
            ),
        });
    }
    facts.accelerators.sort();
}
