//! Parser for Clara's released Netronome measurement files (the format of
//! `shared/data/clara`, described in its README).
//!
//! The files are Python `print` output, so the grammar is small but strict:
//! a run number line, then per NF of the run a `('choices: ', ['0', …])`
//! line and a `('configs: ', ['12', …])` line (colocation runs name the NF
//! first: `nf1`, `nf2`), then `end of last`. Tag files repeat the run number
//! and give one `key: value; …; key: value.` line per NF of the run. Every
//! problem is an error with the file and line; nothing here panics on any
//! input (see the mutation test in `tests/clara_data.rs`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Flags per NF in a scale-out feature file (Click elements, compute blocks,
/// accelerator calls, IMEM placement of data structures 0..4).
pub const SCALE_OUT_CHOICES: usize = 35;
/// Integers per NF in a scale-out feature file.
pub const SCALE_OUT_CONFIGS: usize = 32;
/// Flags per NF in a colocation feature file (the scale-out flags without ISIMEM).
pub const COLOCATION_CHOICES: usize = 30;
/// Integers per NF in a colocation feature file (without TUNEIMEM).
pub const COLOCATION_CONFIGS: usize = 27;

/// A data error, located at a file and a 1-based line (0 when the problem is the file as a whole).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}:{line}: {message}", file.display())]
pub struct DataError {
    pub file: PathBuf,
    pub line: usize,
    pub message: String,
}

fn err(file: &Path, line: usize, message: impl Into<String>) -> DataError {
    DataError {
        file: file.to_path_buf(),
        line,
        message: message.into(),
    }
}

/// One synthetic NF program as Clara describes it: element/block flags and their sizes.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Program {
    pub choices: Vec<u32>,
    pub configs: Vec<i64>,
}

/// One measurement of an NF at one operating point.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Measurement {
    /// Packets per second.
    pub throughput: f64,
    /// Measured latency (the `latency` key; `latency_fake`/`test` are ignored).
    pub latency: f64,
}

/// One NF of a scale-out dataset: its program and the measurement per core count.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ScaleOutNf {
    /// The `<i>` of `trainingset_feature_<i>`.
    pub id: u64,
    pub program: Program,
    /// Core count → measurement, ascending.
    pub curve: BTreeMap<u32, Measurement>,
}

/// One colocation group: NFs measured alone and pairs of them measured together.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ColocationGroup {
    pub id: u64,
    /// Each NF of the group with its throughput alone on the NIC.
    pub solo: Vec<(Program, Measurement)>,
    /// Colocated runs: indices into `solo` and the two NFs' measurements.
    pub pairs: Vec<ColocatedPair>,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ColocatedPair {
    pub nfs: [usize; 2],
    pub measured: [Measurement; 2],
}

/// A run of a feature file: its number, its line, and the NFs it names.
struct FeatureRun {
    number: u64,
    line: usize,
    nfs: Vec<Program>,
}

/// A run of a tag file: its number, its line, and one key/value map per NF.
struct TagRun {
    number: u64,
    line: usize,
    /// Per NF of the run: its measurement line's number and values.
    values: Vec<(usize, BTreeMap<String, f64>)>,
}

fn read(file: &Path) -> Result<String, DataError> {
    let bytes = std::fs::read(file).map_err(|e| err(file, 0, format!("cannot read: {e}")))?;
    String::from_utf8(bytes).map_err(|e| err(file, 0, format!("not UTF-8: {e}")))
}

fn parse_run_number(file: &Path, line_no: usize, line: &str) -> Result<u64, DataError> {
    line.trim().parse::<u64>().map_err(|_| {
        err(
            file,
            line_no,
            format!(
                "expected a run number (a core count or a run index), found `{}`",
                clip(line)
            ),
        )
    })
}

fn clip(s: &str) -> String {
    let s = s.trim();
    if s.chars().count() > 60 {
        format!("{}…", s.chars().take(60).collect::<String>())
    } else {
        s.to_string()
    }
}

/// Parse `('<label>: ', ['1', '2', …])` into its integers. The last item of a
/// `choices` list carries a literal `\n` inside the quotes (Python printed the
/// raw line); it is accepted and dropped.
fn parse_list(file: &Path, line_no: usize, line: &str, label: &str) -> Result<Vec<i64>, DataError> {
    let prefix = format!("('{label}: ', [");
    let body = line
        .trim()
        .strip_prefix(&prefix)
        .and_then(|r| r.strip_suffix("])"))
        .ok_or_else(|| {
            err(
                file,
                line_no,
                format!("expected `{prefix}…])`, found `{}`", clip(line)),
            )
        })?;
    let mut out = Vec::new();
    for (k, item) in body.split(',').enumerate() {
        let item = item.trim();
        let inner = item
            .strip_prefix('\'')
            .and_then(|r| r.strip_suffix('\''))
            .ok_or_else(|| {
                err(
                    file,
                    line_no,
                    format!(
                        "{label} item {} is not a quoted string: `{}`",
                        k + 1,
                        clip(item)
                    ),
                )
            })?;
        let inner = inner.strip_suffix("\\n").unwrap_or(inner);
        let v = inner.parse::<i64>().map_err(|_| {
            err(
                file,
                line_no,
                format!(
                    "{label} item {} is not an integer: `{}`",
                    k + 1,
                    clip(inner)
                ),
            )
        })?;
        out.push(v);
    }
    Ok(out)
}

fn parse_program(
    file: &Path,
    lines: &[(usize, &str)],
    at: usize,
    shape: (usize, usize),
) -> Result<Program, DataError> {
    let (cl, choices_line) = lines
        .get(at)
        .copied()
        .ok_or_else(|| err(file, 0, "unexpected end of file: expected a `choices` line"))?;
    let (gl, configs_line) = lines.get(at + 1).copied().ok_or_else(|| {
        err(
            file,
            cl,
            "unexpected end of file: expected a `configs` line",
        )
    })?;
    let choices = parse_list(file, cl, choices_line, "choices")?;
    if choices.len() != shape.0 {
        return Err(err(
            file,
            cl,
            format!(
                "expected {} choices flags, found {}",
                shape.0,
                choices.len()
            ),
        ));
    }
    if let Some(k) = choices.iter().position(|&c| c != 0 && c != 1) {
        return Err(err(
            file,
            cl,
            format!("choices flag {} is {}, expected 0 or 1", k + 1, choices[k]),
        ));
    }
    let configs = parse_list(file, gl, configs_line, "configs")?;
    if configs.len() != shape.1 {
        return Err(err(
            file,
            gl,
            format!(
                "expected {} configs integers, found {}",
                shape.1,
                configs.len()
            ),
        ));
    }
    if let Some(k) = configs
        .iter()
        .position(|&c| !(0..=1_000_000_000).contains(&c))
    {
        return Err(err(
            file,
            gl,
            format!("configs item {} is {}, expected 0..=1e9", k + 1, configs[k]),
        ));
    }
    Ok(Program {
        choices: choices.into_iter().map(|c| c as u32).collect(),
        configs,
    })
}

/// Non-empty lines with their 1-based numbers.
fn lines(text: &str) -> Vec<(usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .filter(|(_, l)| !l.trim().is_empty())
        .collect()
}

/// Parse a feature file. `named` is true for colocation files (NFs introduced by `nfK`).
fn parse_feature_file(
    file: &Path,
    text: &str,
    named: bool,
    shape: (usize, usize),
) -> Result<Vec<FeatureRun>, DataError> {
    let lines = lines(text);
    let mut runs = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let (line, l) = lines[i];
        let number = parse_run_number(file, line, l)?;
        i += 1;
        let mut nfs = Vec::new();
        loop {
            let (nl, next) = lines.get(i).copied().ok_or_else(|| {
                err(
                    file,
                    line,
                    format!("run {number} is not closed by `end of last`"),
                )
            })?;
            if next.trim() == "end of last" {
                i += 1;
                break;
            }
            if named {
                let expected = format!("nf{}", nfs.len() + 1);
                if next.trim() != expected {
                    return Err(err(
                        file,
                        nl,
                        format!(
                            "expected `{expected}` or `end of last`, found `{}`",
                            clip(next)
                        ),
                    ));
                }
                i += 1;
            } else if !nfs.is_empty() {
                return Err(err(
                    file,
                    nl,
                    format!("expected `end of last`, found `{}`", clip(next)),
                ));
            }
            nfs.push(parse_program(file, &lines, i, shape)?);
            i += 2;
        }
        if nfs.is_empty() {
            return Err(err(file, line, format!("run {number} names no NF")));
        }
        runs.push(FeatureRun { number, line, nfs });
    }
    if runs.is_empty() {
        return Err(err(file, 0, "no runs in the file"));
    }
    Ok(runs)
}

/// Parse `latency_fake: 1.0; time: 2.0; throughput: 3.0; latency: 4.0; test: 5.0.`
fn parse_tag_line(
    file: &Path,
    line_no: usize,
    line: &str,
) -> Result<BTreeMap<String, f64>, DataError> {
    let body = line.trim().strip_suffix('.').ok_or_else(|| {
        err(
            file,
            line_no,
            format!("a measurement line ends with `.`: `{}`", clip(line)),
        )
    })?;
    let mut map = BTreeMap::new();
    for part in body.split(';') {
        let (k, v) = part.split_once(':').ok_or_else(|| {
            err(
                file,
                line_no,
                format!("expected `key: value`, found `{}`", clip(part)),
            )
        })?;
        let k = k.trim();
        let v: f64 = v.trim().parse().map_err(|_| {
            err(
                file,
                line_no,
                format!("value of `{k}` is not a number: `{}`", clip(v)),
            )
        })?;
        if !v.is_finite() {
            return Err(err(file, line_no, format!("value of `{k}` is not finite")));
        }
        if map.insert(k.to_string(), v).is_some() {
            return Err(err(file, line_no, format!("`{k}` appears twice")));
        }
    }
    Ok(map)
}

fn parse_tag_file(file: &Path, text: &str) -> Result<Vec<TagRun>, DataError> {
    let lines = lines(text);
    let mut runs: Vec<TagRun> = Vec::new();
    for (line, l) in lines {
        let t = l.trim();
        if t.bytes().all(|b| b.is_ascii_digit()) {
            runs.push(TagRun {
                number: parse_run_number(file, line, t)?,
                line,
                values: Vec::new(),
            });
        } else {
            let run = runs
                .last_mut()
                .ok_or_else(|| err(file, line, "a measurement line before any run number"))?;
            run.values.push((line, parse_tag_line(file, line, t)?));
        }
    }
    if runs.is_empty() {
        return Err(err(file, 0, "no runs in the file"));
    }
    Ok(runs)
}

/// The measurement of the `k`-th NF of a run (keys suffixed by `k+1` when `suffixed`).
fn measurement(
    file: &Path,
    run: &TagRun,
    k: usize,
    suffixed: bool,
) -> Result<Measurement, DataError> {
    let (line, values) = run.values.get(k).ok_or_else(|| {
        err(
            file,
            run.line,
            format!(
                "run {} has no measurement line for NF {}",
                run.number,
                k + 1
            ),
        )
    })?;
    let key = |base: &str| {
        if suffixed {
            format!("{base}{}", k + 1)
        } else {
            base.to_string()
        }
    };
    let get = |base: &str| -> Result<f64, DataError> {
        let name = key(base);
        let v = *values
            .get(&name)
            .ok_or_else(|| err(file, *line, format!("run {}: no `{name}`", run.number)))?;
        if v <= 0.0 {
            return Err(err(
                file,
                *line,
                format!("run {}: `{name}` is {v}, expected > 0", run.number),
            ));
        }
        Ok(v)
    };
    Ok(Measurement {
        throughput: get("throughput")?,
        latency: get("latency")?,
    })
}

/// The ids `i` of the `trainingset_feature_<i>` files in `dir`, each checked to have its tag file.
fn dataset_ids(dir: &Path) -> Result<Vec<u64>, DataError> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| err(dir, 0, format!("cannot read the dataset directory: {e}")))?;
    let mut features = Vec::new();
    let mut tags = Vec::new();
    for entry in entries {
        let entry =
            entry.map_err(|e| err(dir, 0, format!("cannot read the dataset directory: {e}")))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let (list, rest) = if let Some(r) = name.strip_prefix("trainingset_feature_") {
            (&mut features, r)
        } else if let Some(r) = name.strip_prefix("trainingset_tag_") {
            (&mut tags, r)
        } else {
            continue;
        };
        match rest.parse::<u64>() {
            Ok(i) => list.push(i),
            Err(_) => return Err(err(&entry.path(), 0, "file name does not end in a number")),
        }
    }
    features.sort_unstable();
    tags.sort_unstable();
    for i in &features {
        if tags.binary_search(i).is_err() {
            return Err(err(
                &dir.join(format!("trainingset_feature_{i}")),
                0,
                format!("no matching trainingset_tag_{i}"),
            ));
        }
    }
    for i in &tags {
        if features.binary_search(i).is_err() {
            return Err(err(
                &dir.join(format!("trainingset_tag_{i}")),
                0,
                format!("no matching trainingset_feature_{i}"),
            ));
        }
    }
    if features.is_empty() {
        return Err(err(
            dir,
            0,
            "no trainingset_feature_<i>/trainingset_tag_<i> pairs in the directory",
        ));
    }
    Ok(features)
}

/// Parse one scale-out NF from its feature and tag texts.
pub fn parse_scale_out_nf(
    id: u64,
    feature_file: &Path,
    feature_text: &str,
    tag_file: &Path,
    tag_text: &str,
) -> Result<ScaleOutNf, DataError> {
    let runs = parse_feature_file(
        feature_file,
        feature_text,
        false,
        (SCALE_OUT_CHOICES, SCALE_OUT_CONFIGS),
    )?;
    let tags = parse_tag_file(tag_file, tag_text)?;
    let program = runs[0].nfs[0].clone();
    for run in &runs[1..] {
        if run.nfs[0] != program {
            return Err(err(
                feature_file,
                run.line,
                format!(
                    "core count {}: the program differs from the first run's (one NF per file)",
                    run.number
                ),
            ));
        }
    }
    let mut counts: Vec<(u64, usize)> = runs.iter().map(|r| (r.number, r.line)).collect();
    counts.sort_unstable();
    if let Some(w) = counts.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(err(
            feature_file,
            w[1].1,
            format!("core count {} appears twice", w[1].0),
        ));
    }
    let mut curve = BTreeMap::new();
    for tag in &tags {
        let cores = u32::try_from(tag.number)
            .ok()
            .filter(|&c| (1..=1024).contains(&c))
            .ok_or_else(|| {
                err(
                    tag_file,
                    tag.line,
                    format!("core count {} is out of range 1..=1024", tag.number),
                )
            })?;
        if tag.values.len() != 1 {
            return Err(err(
                tag_file,
                tag.line,
                format!(
                    "core count {cores}: expected one measurement line, found {}",
                    tag.values.len()
                ),
            ));
        }
        if counts.binary_search_by_key(&tag.number, |c| c.0).is_err() {
            return Err(err(
                tag_file,
                tag.line,
                format!(
                    "core count {cores} has no program in {}",
                    feature_file.display()
                ),
            ));
        }
        if curve
            .insert(cores, measurement(tag_file, tag, 0, false)?)
            .is_some()
        {
            return Err(err(
                tag_file,
                tag.line,
                format!("core count {cores} appears twice"),
            ));
        }
    }
    if curve.len() < 2 {
        return Err(err(
            tag_file,
            0,
            "fewer than two core counts measured: no curve to find a knee on",
        ));
    }
    Ok(ScaleOutNf { id, program, curve })
}

/// Parse a directory laid out like `scale_out/dataset_hit`.
pub fn load_scale_out(dir: &Path) -> Result<Vec<ScaleOutNf>, DataError> {
    let mut out = Vec::new();
    for id in dataset_ids(dir)? {
        let ff = dir.join(format!("trainingset_feature_{id}"));
        let tf = dir.join(format!("trainingset_tag_{id}"));
        out.push(parse_scale_out_nf(id, &ff, &read(&ff)?, &tf, &read(&tf)?)?);
    }
    Ok(out)
}

/// Parse one colocation group from its feature and tag texts.
pub fn parse_colocation_group(
    id: u64,
    feature_file: &Path,
    feature_text: &str,
    tag_file: &Path,
    tag_text: &str,
) -> Result<ColocationGroup, DataError> {
    let runs = parse_feature_file(
        feature_file,
        feature_text,
        true,
        (COLOCATION_CHOICES, COLOCATION_CONFIGS),
    )?;
    let tags = parse_tag_file(tag_file, tag_text)?;
    // Runs are matched by position: the released data repeats a run number
    // (an aborted run measured again), so numbers are checked, not keyed on.
    if tags.len() != runs.len() {
        return Err(err(
            tag_file,
            0,
            format!(
                "{} runs, but {} has {}",
                tags.len(),
                feature_file.display(),
                runs.len()
            ),
        ));
    }
    let mut solo: Vec<(Program, Measurement)> = Vec::new();
    let mut pair_runs = Vec::new();
    for (run, tag) in runs.iter().zip(&tags) {
        if run.number != tag.number {
            return Err(err(
                tag_file,
                tag.line,
                format!(
                    "run {} here is run {} in {} (line {})",
                    tag.number,
                    run.number,
                    feature_file.display(),
                    run.line
                ),
            ));
        }
        if tag.values.len() != run.nfs.len() {
            return Err(err(
                tag_file,
                tag.line,
                format!(
                    "run {} names {} NFs but has {} measurement lines",
                    run.number,
                    run.nfs.len(),
                    tag.values.len()
                ),
            ));
        }
        match run.nfs.len() {
            1 => {
                let m = measurement(tag_file, tag, 0, true)?;
                // A repeated solo run of the same NF: the later measurement stands.
                match solo.iter_mut().find(|(p, _)| *p == run.nfs[0]) {
                    Some(s) => s.1 = m,
                    None => solo.push((run.nfs[0].clone(), m)),
                }
            }
            2 => pair_runs.push((
                run,
                [
                    measurement(tag_file, tag, 0, true)?,
                    measurement(tag_file, tag, 1, true)?,
                ],
            )),
            n => {
                return Err(err(
                    feature_file,
                    run.line,
                    format!(
                        "run {} colocates {n} NFs; only pairs are supported",
                        run.number
                    ),
                ))
            }
        }
    }
    let mut pairs = Vec::new();
    for (run, measured) in pair_runs {
        let mut nfs = [0usize; 2];
        for (k, p) in run.nfs.iter().enumerate() {
            nfs[k] = solo.iter().position(|(s, _)| s == p).ok_or_else(|| {
                err(feature_file, run.line, format!("run {}: nf{} was never measured alone, so its colocation loss is undefined", run.number, k + 1))
            })?;
        }
        if nfs[0] == nfs[1] {
            return Err(err(
                feature_file,
                run.line,
                format!("run {} colocates an NF with itself", run.number),
            ));
        }
        pairs.push(ColocatedPair { nfs, measured });
    }
    if pairs.is_empty() {
        return Err(err(feature_file, 0, "no colocated pair in the group"));
    }
    Ok(ColocationGroup { id, solo, pairs })
}

/// Parse a directory laid out like `nf_colocation/dataset`.
pub fn load_colocation(dir: &Path) -> Result<Vec<ColocationGroup>, DataError> {
    let mut out = Vec::new();
    for id in dataset_ids(dir)? {
        let ff = dir.join(format!("trainingset_feature_{id}"));
        let tf = dir.join(format!("trainingset_tag_{id}"));
        out.push(parse_colocation_group(
            id,
            &ff,
            &read(&ff)?,
            &tf,
            &read(&tf)?,
        )?);
    }
    Ok(out)
}
